import { describe, expect, it } from 'vitest';
import { densityFor, type Front, orderSpeakers, SPEAKER_HOLD_MS } from './speakerOrder.ts';

const members = ['ann', 'bob', 'cat', 'dan', 'eve'];

function run(steps: Array<{ at: number; speaking: string[]; members?: string[] }>) {
  let front: Front = new Map();
  let order: string[] = [];
  for (const step of steps) {
    ({ front, order } = orderSpeakers(step.members ?? members, step.speaking, front, step.at));
  }
  return order;
}

describe('orderSpeakers', () => {
  it('keeps the order people came in while nobody talks', () => {
    expect(run([{ at: 0, speaking: [] }])).toEqual(members);
  });

  it('puts whoever talks first, in the order they started', () => {
    expect(
      run([
        { at: 0, speaking: ['dan'] },
        { at: 100, speaking: ['dan', 'bob'] },
      ]),
    ).toEqual(['dan', 'bob', 'ann', 'cat', 'eve']);
  });

  it('keeps a speaker in front through short pauses, and lets them go after a long silence', () => {
    const pausing = [
      { at: 0, speaking: ['eve'] },
      { at: SPEAKER_HOLD_MS - 1, speaking: [] },
    ];
    expect(run(pausing)).toEqual(['eve', 'ann', 'bob', 'cat', 'dan']);
    expect(run([...pausing, { at: SPEAKER_HOLD_MS + 1, speaking: [] }])).toEqual(members);
  });

  it('does not move a speaker who keeps talking behind a newer one', () => {
    expect(
      run([
        { at: 0, speaking: ['cat'] },
        { at: 50, speaking: ['eve'] },
        { at: 100, speaking: ['eve', 'cat'] },
      ]),
    ).toEqual(['cat', 'eve', 'ann', 'bob', 'dan']);
  });

  it('names the people at the front apart from everyone else', () => {
    const first = orderSpeakers(members, ['dan', 'bob'], new Map(), 0);
    expect(first.speakers).toEqual(['dan', 'bob']);
    expect(first.order.slice(first.speakers.length)).toEqual(['ann', 'cat', 'eve']);
    expect(orderSpeakers(members, [], first.front, SPEAKER_HOLD_MS + 1).speakers).toEqual([]);
  });

  it('forgets someone who left, and ignores a voice of someone not in the room', () => {
    expect(
      run([
        { at: 0, speaking: ['bob'] },
        { at: 10, speaking: ['zed'], members: ['ann', 'cat'] },
      ]),
    ).toEqual(['ann', 'cat']);
  });
});

describe('densityFor', () => {
  it('shrinks the tiles as the room fills', () => {
    expect([1, 12, 13, 40, 41, 1000].map(densityFor)).toEqual([
      'roomy',
      'roomy',
      'compact',
      'compact',
      'dense',
      'dense',
    ]);
  });
});
