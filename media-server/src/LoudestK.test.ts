import { describe, expect, it } from 'vitest';
import type { ForwardingChange, SpeakerLevel } from './Forwarding.ts';
import { LoudestK } from './LoudestK.ts';

// The policy on its own, on a clock of the test: what each listener holds after its answers,
// kept as a room would keep it (a change that does not fit what is held fails the test).

type Held = Map<string, 'forwarded' | 'paused'>;

class Model {
  readonly now = { ms: 0 };
  readonly policy: LoudestK;
  readonly consumers = new Map<string, Held>();

  constructor(k: number) {
    this.policy = new LoudestK({ k, now: () => this.now.ms });
  }

  apply(changes: readonly ForwardingChange[]): ForwardingChange[] {
    for (const { action, listener, speaker } of changes) {
      const held = this.consumers.get(listener) ?? new Map();
      this.consumers.set(listener, held);
      const state = held.get(speaker);
      const fits = {
        consume: state === undefined,
        resume: state === 'paused',
        pause: state === 'forwarded',
        close: state === 'paused',
      }[action];
      if (!fits) throw new Error(`${action} of ${speaker} for ${listener} while ${state ?? 'not held'}`);
      if (action === 'close') held.delete(speaker);
      else held.set(speaker, action === 'pause' ? 'paused' : 'forwarded');
    }
    return [...changes];
  }

  /** Members that join and produce, in order. */
  members(...peerIds: string[]): void {
    for (const peerId of peerIds) this.apply(this.policy.peerJoined(peerId));
    for (const peerId of peerIds) this.apply(this.policy.producerAdded(peerId));
  }

  /** A levels report `ms` after the last one. */
  levels(ms: number, levels: Record<string, number>): ForwardingChange[] {
    this.now.ms += ms;
    const report: SpeakerLevel[] = Object.entries(levels).map(([peerId, volume]) => ({ peerId, volume }));
    report.sort((a, b) => b.volume - a.volume);
    return this.apply(this.policy.audioLevels(report));
  }

  /** The voices forwarded to `listener`, sorted. */
  hears(listener: string): string[] {
    return [...(this.consumers.get(listener) ?? [])]
      .filter(([, state]) => state === 'forwarded')
      .map(([speaker]) => speaker)
      .sort();
  }

  holds(listener: string): number {
    return this.consumers.get(listener)?.size ?? 0;
  }
}

describe('LoudestK', () => {
  it("follows another part's choice (a room across media servers), placing a voice not here yet once it comes, and chooses again on its own", () => {
    const room = new Model(1);
    room.members('a', 'b', 'listener');
    room.levels(250, { a: -20 });
    expect(room.hears('listener')).toEqual(['a']);
    // The leading part chose b, then c, which has not been piped here yet: b is heard meanwhile.
    room.apply(room.policy.follow(['b', 'a']));
    expect(room.hears('listener')).toEqual(['b']);
    room.apply(room.policy.follow(['c', 'b']));
    expect(room.hears('listener')).toEqual(['b']);
    room.apply(room.policy.producerAdded('c'));
    expect(room.hears('listener')).toEqual(['c']);
    // Levels here change nothing while following.
    expect(room.levels(250, { a: -10 })).toEqual([]);
    expect(room.policy.selection).toEqual(['c', 'b']);
    // Leading again: the loudest here takes the place once it has been louder long enough.
    room.apply(room.policy.follow(null));
    room.levels(250, { a: -10 });
    room.levels(1000, { a: -10 });
    expect(room.hears('listener')).toEqual(['a']);
  });

  it('a room of at most K+1 voices hears everyone, whatever the levels', () => {
    const room = new Model(3);
    room.members('a', 'b', 'c', 'd');
    expect(room.hears('a')).toEqual(['b', 'c', 'd']);
    expect(room.hears('d')).toEqual(['a', 'b', 'c']);
    expect(room.levels(250, { d: -20, c: -30 })).toEqual([]);
    expect(room.levels(250, {})).toEqual([]);
    expect(room.hears('b')).toEqual(['a', 'c', 'd']);
  });

  it('a listener outside the K loudest hears K; one among them hears the K others, never itself', () => {
    const room = new Model(2);
    room.members('a', 'b', 'c', 'd', 'e', 'listener');
    room.levels(250, { c: -20, d: -25, e: -30 });
    // c and d took the silent places at once, e the spare one.
    expect(room.hears('listener')).toEqual(['c', 'd']);
    expect(room.hears('c')).toEqual(['d', 'e']);
    expect(room.hears('e')).toEqual(['c', 'd']);
    expect(room.hears('a')).toEqual(['c', 'd']);
  });

  it('a voice takes the place of a talking one only after being louder for switchAfterMs; a cough does not', () => {
    const room = new Model(2);
    room.members('a', 'b', 'c', 'd', 'listener');
    room.levels(250, { a: -30, b: -35, c: -40 });
    expect(room.hears('listener')).toEqual(['a', 'b']);
    // d coughs: louder than b for one report, then quiet again.
    expect(room.levels(100, { a: -30, b: -35, c: -40, d: -10 })).toEqual([]);
    expect(room.levels(100, { a: -30, b: -35, c: -40 })).toEqual([]);
    expect(room.hears('listener')).toEqual(['a', 'b']);
    // d talks louder than b: nothing for the first 300 ms, then d has b's place.
    for (let i = 0; i < 3; i++)
      expect(room.levels(100, { a: -30, b: -35, d: -20 }).filter((c) => c.listener === 'listener')).toEqual(
        [],
      );
    room.levels(100, { a: -30, b: -35, d: -20 });
    expect(room.hears('listener')).toEqual(['a', 'd']);
    // b kept a paused consumer: it is resumed, not made again, when b is loud again.
    expect(room.consumers.get('listener')?.get('b')).toBe('paused');
  });

  it('a louder voice takes a place another took a moment ago because it was free, at once', () => {
    const room = new Model(1);
    room.members('a', 'b', 'c', 'listener');
    room.levels(250, { a: -20, b: -40 });
    expect(room.hears('listener')).toEqual(['a']);
    // a stops: b, next in line, takes the place; c starts louder right after and has it at once.
    room.levels(250, { b: -40 });
    expect(room.hears('listener')).toEqual(['b']);
    room.levels(100, { b: -40, c: -15 });
    expect(room.hears('listener')).toEqual(['c']);
    // b, louder again later, must be louder for switchAfterMs like anyone: c keeps the place.
    room.levels(400, { b: -10, c: -15 });
    expect(room.hears('listener')).toEqual(['c']);
  });

  it('a voice that falls silent frees its place at once', () => {
    const room = new Model(1);
    room.members('a', 'b', 'c', 'listener');
    room.levels(250, { a: -30, b: -60 });
    expect(room.hears('listener')).toEqual(['a']);
    // a stops, b goes on and c starts: the next report gives a's place to the loudest of them.
    const changes = room.levels(250, { b: -60, c: -35 });
    expect(changes).toContainEqual({ action: 'pause', listener: 'listener', speaker: 'a' });
    expect(room.hears('listener')).toEqual(['c']);
  });

  it('a listener holds consumers of at most 2K recent voices; the least recently forwarded is closed', () => {
    const room = new Model(2);
    const speakers = Array.from({ length: 10 }, (_, i) => `s${i}`);
    room.members(...speakers, 'listener');
    let closed = 0;
    // Two at a time take turns: every turn brings two voices the listener may not hold.
    for (let turn = 0; turn < 10; turn++) {
      const talking = { [`s${(2 * turn) % 10}`]: -20, [`s${(2 * turn + 1) % 10}`]: -25 };
      const changes = room.levels(250, talking);
      closed += changes.filter((c) => c.action === 'close' && c.listener === 'listener').length;
      expect(room.hears('listener')).toEqual(Object.keys(talking).sort());
      expect(room.holds('listener')).toBeLessThanOrEqual(4);
    }
    expect(closed).toBeGreaterThan(0);
    // A voice still held comes back by a resume.
    const back = room.levels(250, { s8: -20, s9: -25 }).filter((c) => c.listener === 'listener');
    expect(back.filter((c) => c.action === 'consume')).toEqual([]);
  });

  it('a consumer lost (refused, timed out) is asked for again while forwarded, and forgotten while held', () => {
    const room = new Model(1);
    room.members('a', 'b', 'listener');
    room.levels(250, { a: -20 });
    expect(room.hears('listener')).toEqual(['a']);
    // The room lost both of the listener's consumers.
    room.consumers.get('listener')?.clear();
    expect(room.apply(room.policy.consumerLost('listener', 'a'))).toEqual([
      { action: 'consume', listener: 'listener', speaker: 'a' },
    ]);
    expect(room.policy.consumerLost('listener', 'b')).toEqual([]);
    expect(room.policy.stateOf('listener', 'b')).toBe('none');
    expect(room.hears('listener')).toEqual(['a']);
    // b comes in later: consumed anew, not resumed.
    room.levels(250, {});
    room.levels(250, { b: -20 });
    expect(room.hears('listener')).toEqual(['b']);
    expect(room.policy.consumerLost('nobody', 'a')).toEqual([]);
  });

  it('says where a listener stands with a voice, and the voices forwarded to anyone', () => {
    const room = new Model(1);
    room.members('a', 'b', 'c');
    room.levels(250, { b: -20 });
    expect(room.policy.stateOf('c', 'b')).toBe('forwarded');
    expect(room.policy.stateOf('c', 'a')).toBe('held');
    expect(room.policy.stateOf('c', 'nobody')).toBe('none');
    expect(room.policy.stateOf('nobody', 'b')).toBe('none');
    expect([...room.policy.forwardedVoices()].sort()).toEqual(['a', 'b']);
  });

  it('a voice or a listener gone is forgotten, and its place goes to another', () => {
    const room = new Model(1);
    room.members('a', 'b', 'c', 'listener');
    room.levels(250, { a: -20, b: -30 });
    expect(room.hears('listener')).toEqual(['a']);
    // The worker closed a's consumers with its producer.
    for (const held of room.consumers.values()) held.delete('a');
    room.apply(room.policy.producerRemoved('a'));
    expect(room.hears('listener')).toEqual(['b']);
    room.apply(room.policy.peerLeft('listener'));
    expect(room.policy.stateOf('listener', 'b')).toBe('none');
    expect(room.policy.producerRemoved('a')).toEqual([]);
  });

  it('setLoudest() changes K in a running room', () => {
    const room = new Model(1);
    room.members('a', 'b', 'c', 'd', 'listener');
    room.levels(250, { a: -20, b: -25, c: -30 });
    expect(room.hears('listener')).toEqual(['a']);
    room.apply(room.policy.setLoudest(3));
    room.levels(250, { a: -20, b: -25, c: -30 });
    expect(room.hears('listener')).toEqual(['a', 'b', 'c']);
    room.apply(room.policy.setLoudest(2));
    expect(room.hears('listener')).toHaveLength(2);
    expect(room.policy.setLoudest(2)).toEqual([]);
  });

  it('a member that can receive only after joining is given what it is due then', () => {
    const room = new Model(2);
    room.members('a', 'b', 'c', 'listener');
    room.levels(250, { a: -20 });
    // Its consumers could not be made (no receiving transport): the room dropped them.
    room.consumers.delete('listener');
    room.apply(room.policy.peerCanReceive('listener'));
    expect(room.hears('listener')).toEqual(['a', 'b']);
    expect(room.policy.peerCanReceive('stranger')).toEqual([]);
  });
});
