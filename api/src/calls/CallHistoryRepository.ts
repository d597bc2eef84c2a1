/** Call history in the database: each call that rang is written once, when it ends. */
import type { CallEndReason, CallHistoryEntry, CallHistoryStatus } from '@voice/protocol';
import type { Db } from '../db/index.ts';
import type { Call } from './Call.ts';

interface HistoryRow {
  id: string;
  caller_id: string;
  callee_id: string;
  created_at: Date;
  answered_at: Date | null;
  ended_at: Date;
  end_reason: CallEndReason;
  other_id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

export class CallHistoryRepository {
  constructor(readonly db: Db) {}

  /** Stores an ended call; a second write of the same call (two processes racing) is ignored. */
  async record(call: Call, reason: CallEndReason, endedAt: number): Promise<void> {
    await this.db('calls')
      .insert({
        id: call.id,
        caller_id: call.callerId,
        callee_id: call.calleeId,
        created_at: new Date(call.createdAt),
        answered_at: call.answeredAt === null ? null : new Date(call.answeredAt),
        ended_at: new Date(endedAt),
        end_reason: reason,
      })
      .onConflict('id')
      .ignore();
  }

  /** `userId`'s calls, newest first, created before `before` when given. */
  async list(
    userId: string,
    { limit, before }: { limit: number; before?: Date },
  ): Promise<CallHistoryEntry[]> {
    const side = (mine: 'caller_id' | 'callee_id', theirs: 'caller_id' | 'callee_id') => {
      const query = this.db('calls')
        .join('users', 'users.id', `calls.${theirs}`)
        .where(`calls.${mine}`, userId)
        .select('calls.*', 'users.id as other_id', 'users.username', 'users.display_name', 'users.avatar_url')
        .orderBy('calls.created_at', 'desc')
        .limit(limit);
      if (before) query.where('calls.created_at', '<', before);
      return query;
    };
    // Each side reads its own index; the two short lists are merged here.
    const [outgoing, incoming] = await Promise.all([
      side('caller_id', 'callee_id'),
      side('callee_id', 'caller_id'),
    ]);
    const rows = ([...outgoing, ...incoming] as HistoryRow[])
      .sort((x, y) => y.created_at.getTime() - x.created_at.getTime() || (x.id < y.id ? 1 : -1))
      .slice(0, limit);
    return rows.map((row) => present(row, userId));
  }
}

function present(row: HistoryRow, userId: string): CallHistoryEntry {
  const direction = row.caller_id === userId ? 'outgoing' : 'incoming';
  return {
    id: row.id,
    direction,
    status: statusOf(row, direction),
    user: {
      id: row.other_id,
      username: row.username,
      display_name: row.display_name,
      avatar_url: row.avatar_url,
    },
    created_at: row.created_at.toISOString(),
    answered_at: row.answered_at ? row.answered_at.toISOString() : null,
    ended_at: row.ended_at.toISOString(),
    end_reason: row.end_reason,
    duration: row.answered_at
      ? Math.max(0, Math.round((row.ended_at.getTime() - row.answered_at.getTime()) / 1000))
      : 0,
  };
}

function statusOf(row: HistoryRow, direction: 'outgoing' | 'incoming'): CallHistoryStatus {
  if (row.answered_at) return 'answered';
  if (row.end_reason === 'declined') return 'declined';
  if (direction === 'incoming' || row.end_reason === 'timeout') return 'missed';
  return 'cancelled';
}
