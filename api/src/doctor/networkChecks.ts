/**
 * The doctor's checks of what browsers connect to: the RTC UDP port range (bindable here,
 * and reachable at MEDIA_ANNOUNCED_IP when that can be seen from inside), and the
 * certificate of an https PUBLIC_URL.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { connect } from 'node:tls';
import type { MediaConfig } from '@voice/media-server';
import type { Config } from '../config.ts';
import { shortReason } from '../startup/reachable.ts';
import { type CheckResult, fail, pass, skip, warn } from './report.ts';

/** Ports tried across the range: enough to catch a range that overlaps something, cheap to bind. */
const SAMPLES = 10;
const ECHO_TIMEOUT_MS = 1500;
const TLS_TIMEOUT_MS = 5000;
/** Under this many days left, a certificate's renewal is failing. */
const MIN_CERT_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function rtcChecks(
  config: Readonly<Config>,
  media: Readonly<MediaConfig>,
): Promise<CheckResult[]> {
  if (config.mediaServer === 'external') {
    const why = 'MEDIA_SERVER=external: run the doctor where the media servers run';
    return [skip('RTC ports', why), skip('RTC ports reachable', why)];
  }
  const range = `${media.rtcMinPort}-${media.rtcMaxPort}`;
  const ports = samplePorts(media.rtcMinPort, media.rtcMaxPort);
  const bound: Socket[] = [];
  const inUse: number[] = [];
  try {
    for (const port of ports) {
      try {
        bound.push(await bindUdp(port, media.listenIp));
      } catch (error) {
        const code = shortReason(error);
        if (code === 'EADDRINUSE') {
          inUse.push(port);
          continue;
        }
        return [
          fail(
            'RTC ports',
            `cannot bind UDP ${media.listenIp}:${port} (${code})`,
            code === 'EADDRNOTAVAIL'
              ? 'MEDIA_LISTEN_IP must be an address of this host (0.0.0.0: all of them)'
              : 'choose RTC_MIN_PORT and RTC_MAX_PORT above 1024 and free on this host',
          ),
          skip('RTC ports reachable', 'the ports cannot be bound'),
        ];
      }
    }
    if (bound.length === 0) {
      return [
        fail(
          'RTC ports',
          `every port tried in ${range}/udp is in use`,
          'stop what holds them, or choose another RTC_MIN_PORT-RTC_MAX_PORT (also in the firewall and the compose file)',
        ),
        skip('RTC ports reachable', 'no port could be bound'),
      ];
    }
    const busy = inUse.length > 0 ? ` (${inUse.length} in use, by a running media server?)` : '';
    return [
      pass(
        'RTC ports',
        `UDP ${range} bindable on ${media.listenIp}: ${bound.length} of ${ports.length} tried${busy}`,
      ),
      await reachableCheck(bound[0] as Socket, media, range),
    ];
  } finally {
    for (const socket of bound) socket.close();
  }
}

/**
 * From inside a container or behind a firewall, docker's publishing and the firewall cannot be
 * seen: a datagram sent to MEDIA_ANNOUNCED_IP that arrives on the bound port proves the path
 * (hairpin); one that does not proves nothing, so that is a warning.
 */
async function reachableCheck(
  socket: Socket,
  media: Readonly<MediaConfig>,
  range: string,
): Promise<CheckResult> {
  const title = 'RTC ports reachable';
  if (!media.announcedIp) return skip(title, 'MEDIA_ANNOUNCED_IP unset: browsers on this machine only');
  const port = socket.address().port;
  const fix = `open UDP ${range} to this host in the firewall and publish it (compose: "${range}:${range}/udp"), with MEDIA_ANNOUNCED_IP this host's public address`;
  const probe = Buffer.from(`doctor ${Date.now()}`);
  const arrived = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ECHO_TIMEOUT_MS);
    socket.on('message', (data) => {
      if (!data.equals(probe)) return;
      clearTimeout(timer);
      resolve(true);
    });
  });
  const sender = createSocket(isIPv6(media.announcedIp) ? 'udp6' : 'udp4');
  try {
    sender.send(probe, port, media.announcedIp);
    if (await arrived) return pass(title, `UDP to ${media.announcedIp}:${port} arrives here`);
    return warn(
      title,
      `cannot verify from here: UDP to ${media.announcedIp}:${port} did not come back (many routers and clouds do not loop it back)`,
      fix,
    );
  } finally {
    sender.close();
  }
}

/** The certificate of an https PUBLIC_URL: trusted, and not about to expire. */
export async function certificateCheck(config: Readonly<Config>): Promise<CheckResult> {
  const title = 'Certificate';
  const url = new URL(config.publicUrl);
  if (url.protocol !== 'https:') return skip(title, 'PUBLIC_URL is not https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  const caddyFix =
    'Caddy obtains and renews it once DNS points here and ports 80 and 443 are open: see `docker compose logs caddy`';
  try {
    const { validTo, error } = await peerCertificate(host, port);
    if (error) return fail(title, `${url.host} presents a certificate browsers refuse (${error})`, caddyFix);
    const days = Math.floor((validTo.getTime() - Date.now()) / DAY_MS);
    const until = validTo.toISOString().slice(0, 10);
    if (days < MIN_CERT_DAYS) return fail(title, `expires in ${days} days (${until})`, caddyFix);
    return pass(title, `valid for ${days} more days (until ${until})`);
  } catch (error) {
    return fail(title, `cannot connect to ${host}:${port} with TLS (${shortReason(error)})`, caddyFix);
  }
}

function peerCertificate(host: string, port: number): Promise<{ validTo: Date; error: string | null }> {
  return new Promise((resolve, reject) => {
    // Not rejected here, so that an untrusted or expired certificate can be described.
    const socket = connect({
      host,
      port,
      servername: host,
      rejectUnauthorized: false,
      timeout: TLS_TIMEOUT_MS,
    });
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      const error = socket.authorized ? null : String(socket.authorizationError ?? 'not trusted');
      socket.end();
      resolve({ validTo: new Date(certificate.valid_to), error });
    });
    socket.once('timeout', () => socket.destroy(new Error('timed out')));
    socket.once('error', reject);
  });
}

function samplePorts(min: number, max: number): number[] {
  const count = Math.min(SAMPLES, max - min + 1);
  const ports = new Set<number>();
  for (let i = 0; i < count; i++) ports.add(min + Math.round(((max - min) * i) / Math.max(1, count - 1)));
  return [...ports];
}

function bindUdp(port: number, address: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
    socket.once('error', (error) => {
      try {
        socket.close();
      } catch {}
      reject(error);
    });
    socket.bind(port, address, () => resolve(socket));
  });
}
