import { afterEach, describe, expect, it } from 'vitest';
import { ForwardAll, type ForwardingChange, type SpeakerLevel } from './Forwarding.ts';
import type { Peer } from './Peer.ts';
import { join, TestMediaServer } from './testing/TestMediaServer.ts';

// The forwarding policy on its own (its answers), then in a room on a real worker (the consumers
// its answers make), and a room applying a policy's pause, resume and close as LoudestK does.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(forwarding?: () => ForwardAll): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 43800, max: 43899 }, forwarding });
  servers.push(server);
  return server;
}

const consume = (listener: string, speaker: string): ForwardingChange => ({
  action: 'consume',
  listener,
  speaker,
});

describe('ForwardAll', () => {
  it('forwardAll.peerJoined() answers a consume of every voice there; producerAdded() one per other member', () => {
    const forwarding = new ForwardAll();
    expect(forwarding.peerJoined('alice')).toEqual([]);
    expect(forwarding.producerAdded('alice')).toEqual([]);
    expect(forwarding.peerJoined('bob')).toEqual([consume('bob', 'alice')]);
    expect(forwarding.peerJoined('carol')).toEqual([consume('carol', 'alice')]);
    expect(forwarding.producerAdded('bob')).toEqual([consume('alice', 'bob'), consume('carol', 'bob')]);
    // A receiving transport made after the join: every voice again (the room skips those held).
    expect(forwarding.peerCanReceive('carol')).toEqual([consume('carol', 'alice'), consume('carol', 'bob')]);
    expect(forwarding.peerCanReceive('stranger')).toEqual([]);
  });

  it('forwardAll.consumerLost() asks again for a voice still there, not for one gone', () => {
    const policy = new ForwardAll();
    policy.peerJoined('a');
    policy.peerJoined('b');
    policy.producerAdded('a');
    expect(policy.consumerLost('b', 'a')).toEqual([{ action: 'consume', listener: 'b', speaker: 'a' }]);
    policy.producerRemoved('a');
    expect(policy.consumerLost('b', 'a')).toEqual([]);
  });

  it('forwardAll forgets a voice that closed and a member that left, and ignores levels', () => {
    const forwarding = new ForwardAll();
    forwarding.peerJoined('alice');
    forwarding.peerJoined('bob');
    forwarding.producerAdded('alice');
    forwarding.producerAdded('bob');
    expect(forwarding.producerRemoved('alice')).toEqual([]);
    expect(forwarding.peerLeft('bob')).toEqual([]);
    const levels: SpeakerLevel[] = [{ peerId: 'alice', volume: -20 }];
    expect(forwarding.audioLevels(levels)).toEqual([]);
    expect(forwarding.audioLevels([])).toEqual([]);
    expect(forwarding.peerJoined('carol')).toEqual([]);
    expect(forwarding.producerAdded('carol')).toEqual([consume('alice', 'carol')]);
  });

  it('in a room, every joined member that receives holds a consumer of every other voice, and no more', async () => {
    const running = await start();
    const room = () => running.room('room-1');
    const peer = (peerId: string) => room().peer(peerId) as Peer;
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const carol = await running.connect('room-1', 'carol');
    const bot = await running.connect('room-1', 'bot');
    await running.listener('room-1', 'bob');
    await join(alice);
    await join(bob);
    await join(carol);
    // No rtpCapabilities: the bot only sends.
    await bot.request('join', { displayName: 'Bot', device: { name: 'bot' } });
    const aliceVoice = await running.speaker('room-1', alice, 'alice', 1001);
    const botVoice = await running.speaker('room-1', bot, 'bot', 1002);
    await bob.until(() => bob.consumers.length === 2, "bob's consumers of alice and the bot");

    // carol joined without a receiving transport: she gets the voices once she has one.
    expect(peer('carol').consumerCount).toBe(0);
    await running.listener('room-1', 'carol');
    await carol.until(() => carol.consumers.length === 2, "carol's consumers once she receives");
    expect(peer('alice').consumerCount).toBe(0);
    expect(peer('bot').consumerCount).toBe(0);
    for (const listener of ['bob', 'carol']) {
      expect(peer(listener).hasConsumed(aliceVoice.producerId)).toBe(true);
      expect(peer(listener).hasConsumed(botVoice.producerId)).toBe(true);
    }

    // A voice that closes takes its consumers with it; a member that leaves takes theirs.
    await alice.request('closeProducer', { producerId: aliceVoice.producerId });
    await expect.poll(() => peer('bob').hasConsumed(aliceVoice.producerId)).toBe(false);
    await expect.poll(() => peer('carol').consumerCount).toBe(1);
    carol.close();
    await expect.poll(() => room().peer('carol')).toBeUndefined();
    expect(peer('bob').consumerCount).toBe(1);
    expect(running.errors).toEqual([]);
  });
});

/** A change of Bob's consumer of Alice's voice. */
const forBob = (action: ForwardingChange['action']): ForwardingChange => ({
  action,
  listener: 'bob',
  speaker: 'alice',
});

/** ForwardAll, plus whatever a test scripts into its next answer, and the levels it was told. */
class Scripted extends ForwardAll {
  readonly next: ForwardingChange[] = [];
  readonly levels: SpeakerLevel[][] = [];

  override peerJoined(peerId: string): ForwardingChange[] {
    return [...super.peerJoined(peerId), ...this.next.splice(0)];
  }

  override audioLevels(levels: readonly SpeakerLevel[]): ForwardingChange[] {
    this.levels.push([...levels]);
    return [...super.audioLevels(levels), ...this.next.splice(0)];
  }
}

/** A room on a real worker with Alice (who will speak) and Bob, who can receive, both joined. */
async function aliceAndBob(forwarding?: () => ForwardAll) {
  const running = await start(forwarding);
  const peer = (peerId: string) => running.room('room-1').peer(peerId) as Peer;
  const alice = await running.connect('room-1', 'alice');
  const bob = await running.connect('room-1', 'bob');
  await running.listener('room-1', 'bob');
  await join(alice);
  await join(bob);
  return { running, peer, alice, bob };
}

describe('a room and its forwarding policy', () => {
  it("applies a policy's pause, resume and close to the listener's consumer, and feeds it levels", async () => {
    const policy = new Scripted();
    const { running, peer, alice, bob } = await aliceAndBob(() => policy);
    const voice = await running.speaker('room-1', alice, 'alice', 2001);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const consumer = () => peer('bob').consumerOf(voice.producerId);
    await expect.poll(() => consumer()?.paused).toBe(false);

    // Levels reach the policy, the voice's owner named.
    await voice.send(40);
    await expect.poll(() => policy.levels.some((levels) => levels[0]?.peerId === 'alice')).toBe(true);

    const change = (action: ForwardingChange['action']) => ({ action, listener: 'bob', speaker: 'alice' });
    const next = async (action: ForwardingChange['action'], peerId: string) => {
      // A consume of a voice held makes nothing; a change for a member not there is skipped.
      policy.next.push(change('consume'), change(action), { ...change('pause'), listener: 'gone' });
      const member = await running.connect('room-1', peerId);
      await join(member);
    };
    await next('pause', 'carol');
    await expect.poll(() => consumer()?.paused).toBe(true);
    await next('resume', 'dave');
    await expect.poll(() => consumer()?.paused).toBe(false);
    const consumerId = consumer()?.id;
    await next('close', 'erin');
    await bob.notification('consumerClosed', (data) => data.consumerId === consumerId);
    expect(peer('bob').hasConsumed(voice.producerId)).toBe(false);
    expect(running.errors).toEqual([]);
  });

  it('a consumer closed while its member was taking it leaves alone the one made after it', async () => {
    const policy = new Scripted();
    const { running, peer, alice, bob } = await aliceAndBob(() => policy);
    // Bob's browser is slow: it is asked to take the voice, told it closed, and asked again,
    // before it answers the first.
    bob.holdConsumers = true;
    const voice = await running.speaker('room-1', alice, 'alice', 2003);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const first = bob.consumers[0]?.id;
    policy.next.push(forBob('close'), forBob('consume'));
    await join(await running.connect('room-1', 'carol'));
    await bob.notification('consumerClosed', (data) => data.consumerId === first);
    await bob.until(() => bob.consumers.length === 2, 'a second newConsumer');
    const second = bob.consumers[1]?.id;
    bob.answerConsumers();
    const consumer = () => peer('bob').consumerOf(voice.producerId);
    await expect.poll(() => consumer()?.paused).toBe(false);
    expect(consumer()?.id).toBe(second);
    expect(bob.received('consumerClosed').map(({ consumerId }) => consumerId)).toEqual([first]);
    expect(running.errors).toEqual([]);
  });

  it('a consumer its member refused is asked for again while its voice is forwarded', async () => {
    const { running, peer, alice, bob } = await aliceAndBob();
    bob.holdConsumers = true;
    const voice = await running.speaker('room-1', alice, 'alice', 2005);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const refused = bob.consumers[0]?.id;
    bob.answerConsumers('refuse');
    await bob.notification('consumerClosed', (data) => data.consumerId === refused);
    // A second later, once more; taken this time.
    await bob.until(() => bob.consumers.length === 2, 'the newConsumer asked again');
    bob.answerConsumers();
    await expect.poll(() => peer('bob').consumerOf(voice.producerId)?.paused).toBe(false);
    expect(peer('bob').consumerOf(voice.producerId)?.id).toBe(bob.consumers[1]?.id);
  });
});
