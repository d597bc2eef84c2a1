/**
 * The doctor's checks of the TURN relay, with a real allocation on coturn: the credentials
 * the API mints are accepted, the relay refuses loopback and the cloud metadata address, and
 * a packet sent through the relay to its own relayed address comes back (the relay ports are
 * reachable), or a warning says what to open.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { isPrivateIp, isPublicHost } from '../http/addresses.ts';
import { shortReason } from '../startup/reachable.ts';
import { parseIceUrl } from '../webrtc/schema.ts';
import { type Address, TurnClient, TurnError } from '../webrtc/TurnClient.ts';
import { TurnCredentials } from '../webrtc/TurnCredentials.ts';
import { type CheckResult, fail, pass, skip, warn } from './report.ts';

const DEFAULT_TURN_PORT = 3478;
/** Addresses a relay must never reach: this host, and the cloud metadata service. */
const FORBIDDEN_PEERS = ['127.0.0.1', '169.254.169.254'];
const ECHO_TIMEOUT_MS = 2000;

export async function turnChecks(config: Readonly<Config>): Promise<CheckResult[]> {
  const titles = [
    'TURN credentials',
    ...FORBIDDEN_PEERS.map((peer) => `TURN relay to ${peer}`),
    'TURN relay ports',
  ];
  if (!config.turn)
    return titles.map((title) => skip(title, 'no TURN relay configured (TURN_SECRET and TURN_URLS unset)'));
  const url = config.turn.urls
    .map((raw) => parseIceUrl(raw, ['turn']))
    .find((parsed) => parsed !== null && parsed.transport !== 'tcp');
  if (!url) {
    return titles.map((title) =>
      skip(title, 'TURN_URLS has no turn: URL over UDP, the only transport the doctor speaks'),
    );
  }
  const host = url.host.replace(/^\[|\]$/g, '');
  let server: Address;
  try {
    server = {
      address: isIP(host) ? host : (await lookup(host, { family: 4 })).address,
      port: url.port ?? DEFAULT_TURN_PORT,
    };
  } catch (error) {
    return [
      fail(
        'TURN credentials',
        `cannot resolve ${host} (${shortReason(error)})`,
        `point ${host}'s DNS at the TURN server, or use its IP address in TURN_URLS`,
      ),
      ...titles.slice(1).map((title) => skip(title, 'no allocation')),
    ];
  }
  const where = `${server.address}:${server.port}/udp`;
  const credentials = mint(config);
  const first = await TurnClient.connect(server);
  const second = await TurnClient.connect(server);
  try {
    let relayed: Address;
    try {
      relayed = await first.allocate(credentials);
    } catch (error) {
      const refused = error instanceof TurnError && error.code === 401;
      return [
        refused
          ? fail(
              'TURN credentials',
              `coturn at ${where} refused the credentials the API mints (401 Unauthorized)`,
              "TURN_SECRET must equal coturn's static-auth-secret: give the coturn service the same TURN_SECRET and restart both",
            )
          : fail(
              'TURN credentials',
              `no allocation from ${where} (${error instanceof TurnError ? error.message : shortReason(error)})`,
              `check that coturn is running and UDP ${server.port} reaches it (firewall, published port)`,
            ),
        ...titles.slice(1).map((title) => skip(title, 'no allocation')),
      ];
    }
    const results = [
      pass(
        'TURN credentials',
        `coturn at ${where} accepted them and relays from ${relayed.address}:${relayed.port}`,
      ),
    ];
    for (const peer of FORBIDDEN_PEERS) results.push(await refusalCheck(first, peer));
    results.push(await relayPortsCheck(config, first, second, credentials, relayed));
    return results;
  } finally {
    await first.close();
    await second.close();
  }
}

/** A credential for a made-up user, signed as the API signs them. */
function mint(config: Readonly<Config>): { username: string; password: string } {
  const issued = new TurnCredentials({ turn: config.turn, ttlSeconds: 600, stunUrls: null }).issue('doctor');
  const server = issued.rtcConfiguration.iceServers.find((ice) => ice.username !== undefined);
  return { username: server?.username ?? '', password: server?.credential ?? '' };
}

/** A permission for `peer` must be refused (403 Forbidden IP). */
async function refusalCheck(client: TurnClient, peer: string): Promise<CheckResult> {
  const title = `TURN relay to ${peer}`;
  try {
    await client.createPermission(peer);
  } catch (error) {
    if (error instanceof TurnError && error.code === 403) return pass(title, 'refused');
    return fail(title, `no clear refusal (${shortReason(error)})`, 'use coturn/turnserver.conf as shipped');
  }
  return fail(
    title,
    'allowed: anyone signed in could reach this host or the cloud metadata service through the relay',
    'use coturn/turnserver.conf as shipped: keep its denied-peer-ip lines, remove allow-loopback-peers and any allowed-peer-ip for these addresses',
  );
}

/**
 * The relay ports are reachable if a packet the second allocation relays to the first's
 * relayed address arrives: it leaves coturn for its public address and comes back in.
 */
async function relayPortsCheck(
  config: Readonly<Config>,
  first: TurnClient,
  second: TurnClient,
  credentials: { username: string; password: string },
  relayed: Address,
): Promise<CheckResult> {
  const title = 'TURN relay ports';
  const publicSite = isPublicHost(new URL(config.publicUrl).hostname);
  if (publicSite && isPrivateIp(relayed.address)) {
    return fail(
      title,
      `coturn tells browsers to relay through ${relayed.address}, a private address`,
      "set TURN_EXTERNAL_IP to this server's public IP address (coturn's external-ip)",
    );
  }
  const fix =
    "open UDP for coturn's relay ports (min-port-max-port in coturn/turnserver.conf, 50000-50999 by default) and UDP/TCP 3478 in the firewall; with docker, run coturn with host networking or publish them";
  try {
    const other = await second.allocate(credentials);
    await first.createPermission(other.address);
    await second.createPermission(relayed.address);
    const probe = Buffer.from(`doctor ${Date.now()}`);
    second.send(relayed, probe);
    const { data } = await first.receive(ECHO_TIMEOUT_MS);
    if (data.equals(probe))
      return pass(title, `a packet relayed to ${relayed.address}:${relayed.port} arrived`);
  } catch (error) {
    return warn(title, `cannot verify from here that they are reachable (${shortReason(error)})`, fix);
  }
  return warn(title, 'cannot verify from here that they are reachable', fix);
}
