/**
 * A bot's receiving WebRtcTransport connected as a browser connects one: an ICE binding request
 * that nominates the pair (the media server is ICE-lite), then a DTLS handshake as client that
 * offers Chromium's SRTP profiles, so that the worker encrypts what it forwards with the cipher a
 * browser gets (AEAD_AES_256_GCM with this worker; `e2e/tests/rooms.spec.ts` checks what Chromium
 * agrees). The bot never decrypts: it only counts packets, so the keys are never exported.
 *
 * The handshake runs on whichever thread owns the socket (see ears.thread.ts).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { crc32 } from 'node:zlib';
import { CipherContext, DtlsClient } from 'werift';

/** Where a WebRtcTransport listens and its ICE credentials, from `createWebRtcTransport`. */
export interface WebRtcRemote {
  ip: string;
  port: number;
  usernameFragment: string;
  password: string;
}

/** The bots' one certificate (a browser has one per profile) and its SHA-256 fingerprint. */
export interface BotCertificate {
  certPem: string;
  keyPem: string;
  fingerprint: string;
}

/** DTLS-SRTP profiles as Chromium offers them: AEAD_AES_256_GCM, AEAD_AES_128_GCM, AES_CM_128_HMAC_SHA1_80. */
const SRTP_PROFILES = [0x0008, 0x0007, 0x0001];
/** werift's names: SHA-256 (4) with ECDSA (3) on P-256 (23). */
const SIGNATURE_HASH = { hash: 4, signature: 3 };
const NAMED_CURVE_P256 = 23;
/** A handshake not done by then has failed. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** ICE binding requests are sent again this often until answered. */
const STUN_RETRY_MS = 200;

const STUN_MAGIC_COOKIE = 0x2112a442;
const STUN_FINGERPRINT_XOR = 0x5354554e;
const STUN_BINDING_SUCCESS = 0x0101;

export async function botCertificate(): Promise<BotCertificate> {
  const { certPem, keyPem } = await CipherContext.createSelfSignedCertificateWithKey(
    SIGNATURE_HASH as never,
    NAMED_CURVE_P256 as never,
  );
  const der = Buffer.from(certPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return { certPem, keyPem, fingerprint: (hex.match(/../g) ?? []).join(':') };
}

/** The `dtlsParameters` a bot connects its transport with: it is the DTLS client. */
export const botDtlsParameters = (certificate: BotCertificate) => ({
  role: 'client' as const,
  fingerprints: [{ algorithm: 'sha-256' as const, value: certificate.fingerprint }],
});

/** What a datagram on a transport's socket is (RFC 7983): STUN, DTLS or RTP/RTCP. */
export function datagramKind(message: Buffer): 'stun' | 'dtls' | 'rtp' | 'other' {
  const first = message[0] ?? 255;
  if (first <= 3) return 'stun';
  if (first >= 20 && first <= 63) return 'dtls';
  if (first >= 128 && first <= 191) return 'rtp';
  return 'other';
}

/**
 * A STUN binding request as an ICE-controlling agent nominating the pair (USE-CANDIDATE), with
 * USERNAME, MESSAGE-INTEGRITY (the transport's password) and FINGERPRINT.
 */
export function stunBindingRequest(remote: WebRtcRemote, localUfrag: string): Buffer {
  const attributes: Buffer[] = [];
  const add = (type: number, value: Buffer) => {
    const attribute = Buffer.alloc(4 + value.length + ((4 - (value.length % 4)) % 4));
    attribute.writeUInt16BE(type, 0);
    attribute.writeUInt16BE(value.length, 2);
    value.copy(attribute, 4);
    attributes.push(attribute);
  };
  add(0x0006, Buffer.from(`${remote.usernameFragment}:${localUfrag}`)); // USERNAME
  const priority = Buffer.alloc(4);
  priority.writeUInt32BE(0x6e001eff);
  add(0x0024, priority); // PRIORITY
  add(0x802a, randomBytes(8)); // ICE-CONTROLLING, its tie-breaker
  add(0x0025, Buffer.alloc(0)); // USE-CANDIDATE
  const header = Buffer.alloc(20);
  header.writeUInt16BE(0x0001, 0); // Binding request
  header.writeUInt32BE(STUN_MAGIC_COOKIE, 4);
  randomBytes(12).copy(header, 8);
  // MESSAGE-INTEGRITY covers the message with its length already counting itself (24 bytes).
  let body = Buffer.concat(attributes);
  header.writeUInt16BE(body.length + 24, 2);
  const integrity = Buffer.alloc(24);
  integrity.writeUInt16BE(0x0008, 0);
  integrity.writeUInt16BE(20, 2);
  createHmac('sha1', remote.password)
    .update(Buffer.concat([header, body]))
    .digest()
    .copy(integrity, 4);
  body = Buffer.concat([body, integrity]);
  // FINGERPRINT likewise (8 bytes).
  header.writeUInt16BE(body.length + 8, 2);
  const fingerprint = Buffer.alloc(8);
  fingerprint.writeUInt16BE(0x8028, 0);
  fingerprint.writeUInt16BE(4, 2);
  fingerprint.writeUInt32BE((crc32(Buffer.concat([header, body])) ^ STUN_FINGERPRINT_XOR) >>> 0, 4);
  return Buffer.concat([header, body, fingerprint]);
}

/**
 * Connects `socket` to `remote` as a browser would (ICE, then DTLS as client). The socket's
 * owner hands its STUN and DTLS datagrams to the returned `receive` meanwhile; `done` settles
 * with the agreed SRTP profile (its IANA number) or the failure.
 */
export function connectTransport(
  socket: Socket,
  remote: WebRtcRemote,
  certificate: BotCertificate,
): { receive: (message: Buffer) => void; done: Promise<number> } {
  const send = (data: Buffer) =>
    new Promise<void>((resolve) => socket.send(data, remote.port, remote.ip, () => resolve()));
  const dtlsTransport = {
    type: 'udp',
    address: socket.address(),
    closed: false,
    onData: (_data: Buffer, _from: unknown) => {},
    send,
    close: async () => {},
  };
  const client = new DtlsClient({
    transport: dtlsTransport as never,
    cert: certificate.certPem,
    key: certificate.keyPem,
    signatureHash: SIGNATURE_HASH as never,
    srtpProfiles: SRTP_PROFILES as never,
  });
  let answered = false;
  const request = stunBindingRequest(remote, randomBytes(4).toString('hex'));
  let retry: NodeJS.Timeout | undefined;
  let timeout: NodeJS.Timeout | undefined;
  const done = new Promise<number>((resolve, reject) => {
    const ask = () => {
      void send(request);
      retry = setTimeout(ask, STUN_RETRY_MS);
    };
    ask();
    timeout = setTimeout(
      () => reject(new Error(`no DTLS with ${remote.ip}:${remote.port} within ${HANDSHAKE_TIMEOUT_MS} ms`)),
      HANDSHAKE_TIMEOUT_MS,
    );
    client.onConnect.subscribe(() => resolve(client.srtp.srtpProfile as unknown as number));
    client.onError.subscribe((error) => reject(error));
  }).finally(() => {
    clearTimeout(retry);
    clearTimeout(timeout);
  });
  const receive = (message: Buffer) => {
    const kind = datagramKind(message);
    if (
      kind === 'stun' &&
      !answered &&
      message.length >= 20 &&
      message.readUInt16BE(0) === STUN_BINDING_SUCCESS
    ) {
      // Nominated: the transport sends to this socket from now on, and takes DTLS from it.
      answered = true;
      clearTimeout(retry);
      void client.connect();
    } else if (kind === 'dtls') {
      dtlsTransport.onData(message, [remote.ip, remote.port]);
    }
  };
  return { receive, done };
}
