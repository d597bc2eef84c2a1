import { RTC_LIMITS } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidStateError, RTC_ERROR } from './errors.ts';
import type { Peer } from './Peer.ts';
import { opusRtpParameters } from './testing/rtp.ts';
import { join, TestMediaServer } from './testing/TestMediaServer.ts';
import type { Consumer, Transport } from './types.ts';

// A Peer's own state behind its methods, against a real worker: the room's router makes the
// transports, the Peer adopts, produces and consumes on them.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** alice and bob joined in room-1; their Peers, and the room's router to make transports on. */
async function twoPeers() {
  const running = await TestMediaServer.start({ rtcPorts: { min: 43700, max: 43799 } });
  servers.push(running);
  const aliceMember = await running.connect('room-1', 'alice');
  const bobMember = await running.connect('room-1', 'bob');
  await join(aliceMember);
  await join(bobMember);
  const room = running.room('room-1');
  const alice = room.peer('alice') as Peer;
  const bob = room.peer('bob') as Peer;
  const plain = (producing: boolean): Promise<Transport> =>
    room.router.createPlainTransport({
      listenIp: '127.0.0.1',
      rtcpMux: true,
      comedia: producing,
      appData: { producing, consuming: !producing },
    });
  return { running, room, alice, bob, plain };
}

const refusal = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('Peer', () => {
  it('peer.adoptTransport() keeps the transport until it closes, and refuses one past the headroom', async () => {
    const { alice, plain } = await twoPeers();
    const first = await plain(true);
    alice.adoptTransport(first);
    expect(alice.transport(first.id)).toBe(first);
    expect(alice.transportFor('producing')).toBe(first);
    first.close();
    expect(() => alice.transport(first.id)).toThrow(expect.objectContaining({ status: RTC_ERROR.notFound }));

    const kept = [];
    for (let i = 0; i < RTC_LIMITS.transportsPerPeer; i += 1) {
      const transport = await plain(false);
      alice.adoptTransport(transport);
      kept.push(transport);
    }
    expect(() => alice.checkTransportHeadroom()).toThrow(
      expect.objectContaining({ status: RTC_ERROR.conflict }),
    );
    const extra = await plain(false);
    expect(() => alice.adoptTransport(extra)).toThrow(
      expect.objectContaining({ status: RTC_ERROR.conflict }),
    );
    expect(extra.closed).toBe(true);
    expect(kept.every((transport) => !transport.closed)).toBe(true);
  });

  it('peer.adoptTransport() closes a transport made after the member left', async () => {
    const { alice, plain } = await twoPeers();
    alice.close();
    const late = await plain(true);
    expect(() => alice.adoptTransport(late)).toThrow(InvalidStateError);
    expect(late.closed).toBe(true);
  });

  it('peer.produce() makes one voice on a sending transport, forgotten when it closes', async () => {
    const { alice, plain } = await twoPeers();
    const receiving = await plain(false);
    alice.adoptTransport(receiving);
    expect(
      ((await refusal(alice.produce(receiving.id, opusRtpParameters(1)))) as { status: number }).status,
    ).toBe(RTC_ERROR.forbidden);

    const sending = await plain(true);
    alice.adoptTransport(sending);
    // Two at once: the second is refused while the first is being made.
    const [made, second] = await Promise.allSettled([
      alice.produce(sending.id, opusRtpParameters(1)),
      alice.produce(sending.id, opusRtpParameters(2)),
    ]);
    expect(made.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { status: RTC_ERROR.conflict } });
    const producer = alice.producer;
    expect(producer?.appData).toEqual({ peerId: 'alice' });
    expect(alice.ownProducer(producer?.id ?? '')).toBe(producer);
    expect(alice.info.muted).toBe(false);

    producer?.close();
    expect(alice.producer).toBeUndefined();
    expect(alice.info.muted).toBe(true);
    await alice.produce(sending.id, opusRtpParameters(3));
    expect(alice.producer?.closed).toBe(false);
  });

  it('peer.addConsumer() makes one consumer per producer, and hasConsumed() says so until it closes', async () => {
    const { alice, bob, plain } = await twoPeers();
    const sending = await plain(true);
    alice.adoptTransport(sending);
    const producer = await alice.produce(sending.id, opusRtpParameters(1));
    const create = (transport: Transport) =>
      transport.consume({
        producerId: producer.id,
        rtpCapabilities: bob.rtpCapabilities ?? {},
        paused: true,
      });

    // No receiving transport yet: nothing is made, nothing is marked.
    expect(await bob.addConsumer(producer.id, create)).toBeUndefined();
    expect(bob.hasConsumed(producer.id)).toBe(false);

    bob.adoptTransport(await plain(false));
    const [consumer, twice] = await Promise.all([
      bob.addConsumer(producer.id, create),
      bob.addConsumer(producer.id, create),
    ]);
    expect(consumer?.producerId).toBe(producer.id);
    expect(twice).toBeUndefined();
    expect(bob.hasConsumed(producer.id)).toBe(true);
    expect(bob.consumerCount).toBe(1);
    expect(bob.consumer(consumer?.id ?? '')).toBe(consumer);
    expect(bob.consumerOf(producer.id)).toBe(consumer);
    expect(() => alice.consumer(consumer?.id ?? '')).toThrow(
      expect.objectContaining({ status: RTC_ERROR.notFound }),
    );

    // The worker closes the consumer once the producer closes.
    producer.close();
    await expect.poll(() => bob.hasConsumed(producer.id)).toBe(false);
    expect(bob.consumerCount).toBe(0);
  });

  it('peer.addConsumer() forgets the producer when the consumer could not be made', async () => {
    const { bob, plain } = await twoPeers();
    bob.adoptTransport(await plain(false));
    const failing = (): Promise<Consumer> => Promise.reject(new Error('worker said no'));
    await expect(bob.addConsumer('some-producer', failing)).rejects.toThrow('worker said no');
    expect(bob.hasConsumed('some-producer')).toBe(false);
  });

  it('peer.close() closes every transport, with them the producer and consumers, once', async () => {
    const { running, alice, bob, plain } = await twoPeers();
    const sending = await plain(true);
    alice.adoptTransport(sending);
    const producer = await alice.produce(sending.id, opusRtpParameters(1));
    const receiving = await plain(false);
    bob.adoptTransport(receiving);
    const consumer = await bob.addConsumer(producer.id, (transport) =>
      transport.consume({
        producerId: producer.id,
        rtpCapabilities: bob.rtpCapabilities ?? {},
        paused: true,
      }),
    );

    bob.close();
    bob.close();
    expect(bob.closed).toBe(true);
    expect(receiving.closed).toBe(true);
    expect(consumer?.closed).toBe(true);
    expect(bob.consumerCount).toBe(0);
    expect(bob.hasConsumed(producer.id)).toBe(false);

    alice.close();
    expect(sending.closed).toBe(true);
    expect(producer.closed).toBe(true);
    expect(alice.producer).toBeUndefined();
    // Its connection went, so the room forgot the member.
    await expect.poll(() => running.media.rooms.get('room-1')?.peer('alice')).toBeUndefined();
  });
});
