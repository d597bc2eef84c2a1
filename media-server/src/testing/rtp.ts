/** Opus RTP over UDP from and to the test, for PlainTransports. */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** The payload type tests produce Opus with. */
export const TEST_OPUS_PAYLOAD_TYPE = 100;

/** The RTP header extension id tests carry the sender's audio level in (RFC 6464). */
const AUDIO_LEVEL_EXTENSION_ID = 1;

/** RTP parameters of an Opus producer sending with `ssrc` from a test socket. */
export function opusRtpParameters(ssrc: number) {
  return {
    codecs: [
      {
        mimeType: 'audio/opus',
        payloadType: TEST_OPUS_PAYLOAD_TYPE,
        clockRate: 48000,
        channels: 2,
        parameters: { useinbandfec: 1, usedtx: 1 },
      },
    ],
    headerExtensions: [{ uri: 'urn:ietf:params:rtp-hdrext:ssrc-audio-level', id: AUDIO_LEVEL_EXTENSION_ID }],
    encodings: [{ ssrc }],
  };
}

/**
 * One RTP packet of 20 ms of "Opus" (mediasoup forwards payloads without decoding them), saying
 * in its audio level extension how loud it is: `level` in -dBov (0 loudest, 127 silence).
 */
export function opusPacket(sequence: number, ssrc: number, level = 30): Buffer {
  const packet = Buffer.alloc(12 + 8 + 40);
  packet[0] = 0x90; // version 2, no padding, a header extension, no CSRC
  packet[1] = TEST_OPUS_PAYLOAD_TYPE;
  packet.writeUInt16BE(sequence & 0xffff, 2);
  packet.writeUInt32BE((sequence * 960) >>> 0, 4);
  packet.writeUInt32BE(ssrc, 8);
  // RFC 8285 one-byte header: 0xBEDE, one 32-bit word holding one one-byte element and padding.
  packet.writeUInt16BE(0xbede, 12);
  packet.writeUInt16BE(1, 14);
  packet[16] = AUDIO_LEVEL_EXTENSION_ID << 4;
  packet[17] = 0x80 | level; // voice activity flag and level
  packet[20] = 0xfc; // an Opus TOC byte: CELT fullband 20 ms, one frame
  return packet;
}

/** The SSRC of an RTP packet. */
export function ssrcOf(packet: Buffer): number {
  return packet.readUInt32BE(8);
}

/** A UDP socket on 127.0.0.1 that records the RTP packets it receives. */
export class RtpSocket {
  readonly packets: Buffer[] = [];
  readonly #socket: Socket;
  #sequence = 0;

  static async bind(): Promise<RtpSocket> {
    const socket = createSocket('udp4');
    socket.bind(0, '127.0.0.1');
    await once(socket, 'listening');
    return new RtpSocket(socket);
  }

  private constructor(socket: Socket) {
    this.#socket = socket;
    // RTCP (its second byte, the packet type, is 192-223 where RTP has marker and payload type) is not audio.
    socket.on('message', (message: Buffer) => {
      const second = message[1] ?? 0;
      if (message.length >= 12 && (second < 192 || second > 223)) this.packets.push(message);
    });
  }

  get port(): number {
    return this.#socket.address().port;
  }

  send(packet: Buffer, port: number): void {
    this.#socket.send(packet, port, '127.0.0.1');
  }

  /** Sends `count` packets to `port`, one every `intervalMs`, the i-th at `level(i)` (-dBov). */
  async stream(
    port: number,
    ssrc: number,
    count: number,
    { intervalMs = 5, level = () => 30 }: { intervalMs?: number; level?: (i: number) => number } = {},
  ): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.#sequence += 1;
      this.send(opusPacket(this.#sequence, ssrc, level(i)), port);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * Streams of Opus RTP, one packet every 20 ms each, sent from a thread of their own: the test's
 * event loop is busy with the media server it also runs, and packets late by its stalls would
 * look like silence to the worker's level observers (a stream needs 10 packets an interval).
 */
export class RtpSender {
  readonly #thread: Worker;

  constructor() {
    const source = `
      const { parentPort } = require('node:worker_threads');
      const socket = require('node:dgram').createSocket('udp4');
      const TEST_OPUS_PAYLOAD_TYPE = ${TEST_OPUS_PAYLOAD_TYPE};
      const AUDIO_LEVEL_EXTENSION_ID = ${AUDIO_LEVEL_EXTENSION_ID};
      const opusPacket = ${opusPacket.toString()};
      const streams = new Map();
      let next = performance.now();
      let timer;
      const tick = () => {
        for (const [port, stream] of streams) {
          stream.sequence += 1;
          socket.send(opusPacket(stream.sequence, stream.ssrc, stream.level), port, '127.0.0.1');
        }
        next += 20;
        timer = setTimeout(tick, Math.max(0, next - performance.now()));
      };
      tick();
      parentPort.on('message', ({ port, ssrc, level, close }) => {
        if (close) {
          clearTimeout(timer);
          socket.close();
          parentPort.close();
        } else if (level === null) {
          streams.delete(port);
        } else {
          const stream = streams.get(port) ?? { ssrc, sequence: 0 };
          streams.set(port, { ...stream, level });
        }
      });
    `;
    this.#thread = new Worker(source, { eval: true });
    this.#thread.unref();
  }

  /** `ssrc` sends to `port` at `level` (-dBov) from now on, or stops (null). */
  set(port: number, ssrc: number, level: number | null): void {
    this.#thread.postMessage({ port, ssrc, level });
  }

  close(): void {
    this.#thread.postMessage({ close: true });
  }
}
