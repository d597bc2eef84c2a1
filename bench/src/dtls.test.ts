import { afterEach, describe, expect, test } from 'vitest';
import { botCertificate, datagramKind, stunBindingRequest } from './dtls.ts';
import { type Bench, Ears, joinRoom, joinRoomAsBrowser, speak, startBench } from './rtpLoad.ts';

const ROOM_ID = 'dtls-room';

describe("bench:large-room's listeners connect as browsers", () => {
  let bench: Bench | undefined;
  const ears: Ears[] = [];
  afterEach(async () => {
    for (const e of ears.splice(0)) await e.close();
    await bench?.close();
    bench = undefined;
  });

  test('ICE and DTLS with AES-GCM on a WebRtcTransport, then the voice arrives as SRTP', async () => {
    bench = await startBench({ rtcPorts: { min: 45_000, max: 45_199 } });
    const certificate = await botCertificate();
    const secure = new Ears({ certificate });
    const plain = new Ears();
    ears.push(secure, plain);

    const listener = await bench.connect(ROOM_ID, 'listener');
    const earPort = await secure.open();
    // Throws unless the worker agreed AEAD_AES_256_GCM, as it does with Chromium.
    await joinRoomAsBrowser(listener, 'listener', secure, earPort, certificate);
    const transport = bench.room(ROOM_ID).peer('listener')?.transportFor('consuming');
    expect(transport?.constructor.name).toBe('WebRtcTransport');
    // The worker tells the Node side of its DTLS state a moment after the client is done.
    await expect.poll(() => (transport as { dtlsState?: string } | undefined)?.dtlsState).toBe('connected');

    const talker = await bench.connect(ROOM_ID, 'talker');
    await joinRoom(bench, talker, ROOM_ID, 'talker', await plain.open());
    const voice = await speak(bench, talker, ROOM_ID, 'talker', 4242, { level: 20 });
    // The consumer sends under an SSRC of its own: any RTP at the socket is the talker's.
    await expect
      .poll(async () => (await secure.heard()).find((h) => h.port === earPort)?.received ?? 0, {
        timeout: 5000,
      })
      .toBeGreaterThan(10);
    voice.stop();
  });

  test('a binding request is STUN with integrity and fingerprint; datagrams are told apart as RFC 7983 says', () => {
    const request = stunBindingRequest(
      { ip: '127.0.0.1', port: 1, usernameFragment: 'server', password: 'secret' },
      'bot',
    );
    expect(datagramKind(request)).toBe('stun');
    expect(request.readUInt16BE(0)).toBe(0x0001);
    expect(request.readUInt16BE(2)).toBe(request.length - 20);
    // FINGERPRINT last, MESSAGE-INTEGRITY just before it.
    expect(request.readUInt16BE(request.length - 8)).toBe(0x8028);
    expect(request.readUInt16BE(request.length - 32)).toBe(0x0008);
    expect(request.includes(Buffer.from('server:bot'))).toBe(true);
    expect(datagramKind(Buffer.from([22, 254, 253]))).toBe('dtls');
    expect(datagramKind(Buffer.from([0x80, 111]))).toBe('rtp');
    expect(datagramKind(Buffer.from([64]))).toBe('other');
  });
});
