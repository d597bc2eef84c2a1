import type { CallHistoryEntry } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import {
  type CallHistoryAction,
  type CallHistoryState,
  callHistoryReducer,
  callStatusView,
  formatCallTime,
  formatDuration,
  initialCallHistoryState,
  nextBefore,
} from './callHistoryView.ts';

/** A call created `minutesAgo` minutes before 2026-03-12 12:00 UTC. */
function call(id: string, minutesAgo: number): CallHistoryEntry {
  const created = new Date(Date.UTC(2026, 2, 12, 12, 0) - minutesAgo * 60_000).toISOString();
  return {
    id,
    direction: 'outgoing',
    status: 'answered',
    user: { id: `user-${id}`, username: `user${id}`, display_name: null, avatar_url: null },
    created_at: created,
    answered_at: created,
    ended_at: created,
    end_reason: 'hangup',
    duration: 60,
  };
}

const run = (actions: CallHistoryAction[], from: CallHistoryState = initialCallHistoryState) =>
  actions.reduce(callHistoryReducer, from);

const ids = (state: CallHistoryState) => state.calls.map((entry) => entry.id);
const failure = { key: 'errors.generic.network' };

describe('callStatusView', () => {
  it('marks only incoming unanswered calls as missed', () => {
    expect(callStatusView({ direction: 'incoming', status: 'missed' })).toEqual({
      key: 'callHistory.status.missed',
      missed: true,
      answered: false,
    });
    expect(callStatusView({ direction: 'outgoing', status: 'missed' })).toEqual({
      key: 'callHistory.status.noAnswer',
      missed: false,
      answered: false,
    });
  });

  it('shows the duration of answered calls only', () => {
    for (const direction of ['incoming', 'outgoing'] as const) {
      expect(callStatusView({ direction, status: 'answered' })).toEqual({
        key: 'callHistory.status.answered',
        missed: false,
        answered: true,
      });
      expect(callStatusView({ direction, status: 'declined' }).key).toBe('callHistory.status.declined');
      expect(callStatusView({ direction, status: 'cancelled' }).key).toBe('callHistory.status.cancelled');
      expect(callStatusView({ direction, status: 'declined' }).answered).toBe(false);
    }
  });
});

describe('formatDuration', () => {
  it('writes m:ss under an hour', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(7)).toBe('0:07');
    expect(formatDuration(59)).toBe('0:59');
    expect(formatDuration(60)).toBe('1:00');
    expect(formatDuration(750)).toBe('12:30');
    expect(formatDuration(3599)).toBe('59:59');
  });

  it('writes h:mm:ss from an hour on', () => {
    expect(formatDuration(3600)).toBe('1:00:00');
    expect(formatDuration(3723)).toBe('1:02:03');
    expect(formatDuration(36_000 + 59)).toBe('10:00:59');
  });

  it('drops fractions and never goes below zero', () => {
    expect(formatDuration(61.9)).toBe('1:01');
    expect(formatDuration(-5)).toBe('0:00');
  });
});

describe('formatCallTime', () => {
  // Local times, so the tests hold in any time zone.
  const now = new Date(2026, 2, 12, 18, 30).getTime();
  const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();

  it('shows only the time for a call today', () => {
    expect(formatCallTime(at(2026, 2, 12, 14, 5), 'en', now)).toMatch(/^2:05\sPM$/u);
    expect(formatCallTime(at(2026, 2, 12, 0, 1), 'de', now)).toBe('00:01');
  });

  it('shows the weekday and time within the last week', () => {
    // 2026-03-10 is a Tuesday.
    expect(formatCallTime(at(2026, 2, 10, 9, 15), 'en', now)).toMatch(/^Tue,?\s9:15\sAM$/u);
    expect(formatCallTime(at(2026, 2, 11, 23, 59), 'ru', now)).toMatch(/^ср,?\s23:59$/u);
  });

  it('shows the day and month earlier this year, the full date before', () => {
    expect(formatCallTime(at(2026, 2, 5, 10, 0), 'en', now)).toBe('Mar 5');
    expect(formatCallTime(at(2026, 0, 2, 10, 0), 'de', now)).toBe('2. Jan.');
    expect(formatCallTime(at(2025, 11, 31, 10, 0), 'en', now)).toBe('Dec 31, 2025');
  });

  it('is empty for a date it cannot read', () => {
    expect(formatCallTime('not a date', 'en', now)).toBe('');
  });
});

describe('callHistoryReducer', () => {
  const page = (from: number, count: number) =>
    Array.from({ length: count }, (_, index) => call(String(from + index), from + index));

  it('loads the first page and knows whether more may follow', () => {
    const full = run([{ type: 'load/started' }, { type: 'load/succeeded', calls: page(0, 3), limit: 3 }]);
    expect(full.status).toBe('ready');
    expect(ids(full)).toEqual(['0', '1', '2']);
    expect(full.hasMore).toBe(true);
    expect(run([{ type: 'load/succeeded', calls: page(0, 2), limit: 3 }]).hasMore).toBe(false);
  });

  it('keeps why the first load failed and starts over on retry', () => {
    const failed = run([{ type: 'load/failed', error: failure }]);
    expect(failed).toMatchObject({ status: 'error', error: failure, calls: [] });
    expect(run([{ type: 'load/started' }], failed)).toEqual(initialCallHistoryState);
  });

  it('pages on from the oldest call shown', () => {
    const first = run([{ type: 'load/succeeded', calls: page(0, 3), limit: 3 }]);
    const before = nextBefore(first.calls);
    expect(before).toBe(call('2', 2).created_at);
    const second = run(
      [
        { type: 'more/started' },
        { type: 'more/succeeded', calls: page(3, 3), limit: 3, before: before as string },
      ],
      first,
    );
    expect(ids(second)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(second.hasMore).toBe(true);
    expect(second.loadingMore).toBe(false);
    const last = run(
      [{ type: 'more/succeeded', calls: page(6, 1), limit: 3, before: nextBefore(second.calls) as string }],
      second,
    );
    expect(last.hasMore).toBe(false);
    expect(nextBefore([])).toBeNull();
  });

  it('never lists a call twice when a page repeats one', () => {
    const first = run([{ type: 'load/succeeded', calls: page(0, 2), limit: 2 }]);
    const next = run(
      [{ type: 'more/succeeded', calls: page(1, 2), limit: 2, before: nextBefore(first.calls) as string }],
      first,
    );
    expect(ids(next)).toEqual(['0', '1', '2']);
  });

  it('drops a page asked for a list that has changed since', () => {
    const first = run([{ type: 'load/succeeded', calls: page(0, 2), limit: 2 }]);
    const asked = nextBefore(first.calls) as string;
    const reloaded = run(
      [{ type: 'more/started' }, { type: 'load/succeeded', calls: page(10, 2), limit: 2 }],
      first,
    );
    const late = run([{ type: 'more/succeeded', calls: page(2, 2), limit: 2, before: asked }], reloaded);
    expect(ids(late)).toEqual(['10', '11']);
    expect(late.loadingMore).toBe(false);
  });

  it('keeps the list when loading more fails, with the reason', () => {
    const first = run([{ type: 'load/succeeded', calls: page(0, 2), limit: 2 }]);
    const failed = run([{ type: 'more/started' }, { type: 'more/failed', error: failure }], first);
    expect(ids(failed)).toEqual(['0', '1']);
    expect(failed).toMatchObject({ loadingMore: false, moreError: failure, hasMore: true });
    expect(run([{ type: 'more/started' }], failed).moreError).toBeNull();
  });

  it('puts new calls on top when refreshed, keeping the pages already loaded', () => {
    const shown = run([
      { type: 'load/succeeded', calls: page(5, 3), limit: 3 },
      { type: 'more/succeeded', calls: page(8, 3), limit: 3, before: call('7', 7).created_at },
    ]);
    const refreshed = run(
      [{ type: 'refresh/succeeded', calls: [call('1', 1), ...page(5, 2)], limit: 3 }],
      shown,
    );
    expect(ids(refreshed)).toEqual(['1', '5', '6', '7', '8', '9', '10']);
    expect(refreshed.hasMore).toBe(true);
    expect(run([{ type: 'refresh/succeeded', calls: page(5, 3), limit: 3 }], shown)).toBe(shown);
  });

  it('starts over from a refreshed page that does not reach the calls shown', () => {
    const shown = run([{ type: 'load/succeeded', calls: page(10, 2), limit: 2 }]);
    const refreshed = run([{ type: 'refresh/succeeded', calls: page(0, 2), limit: 2 }], shown);
    expect(ids(refreshed)).toEqual(['0', '1']);
    expect(refreshed.hasMore).toBe(true);
  });

  it('takes a refresh as the first load when nothing is shown yet', () => {
    const empty = run([{ type: 'load/succeeded', calls: [], limit: 3 }]);
    expect(run([{ type: 'refresh/succeeded', calls: page(0, 1), limit: 3 }], empty)).toMatchObject({
      status: 'ready',
      hasMore: false,
    });
    const failed = run([{ type: 'load/failed', error: failure }]);
    expect(run([{ type: 'refresh/succeeded', calls: page(0, 3), limit: 3 }], failed)).toMatchObject({
      status: 'ready',
      error: null,
      hasMore: true,
    });
  });
});
