/**
 * Calls in Redis, shared by every API process:
 *
 *   call:<callId>        hash: the Call's fields
 *   call-of:<userId>     the id of the call the user is in or ringing for (the "busy" claim)
 *   calls                set of every call id, for the sweep of calls whose process died
 *
 * Each change is one Lua script, so claiming both parties, the first answer and the one
 * removal are atomic whichever processes race. Every key expires (a ringing call shortly
 * after its ring time, a connected one after a day), so a call whose processes all died
 * cannot keep its parties busy for ever.
 */
import type { RedisLink } from '@voice/bus';
import type { Call } from './Call.ts';
import type { CallStore } from './CallStore.ts';

const CONNECTED_TTL_MS = 24 * 60 * 60 * 1000;

const CREATE_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[1])
return 1`;

const ANSWER_SCRIPT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'ringing' then return false end
redis.call('HSET', KEYS[1], 'status', 'connected', 'calleeConnectionId', ARGV[1], 'answeredAt', ARGV[2], 'calleeNodeId', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local parties = redis.call('HMGET', KEYS[1], 'callerId', 'calleeId')
for i = 1, 2 do redis.call('PEXPIRE', ARGV[4] .. parties[i], ARGV[3]) end
return redis.call('HGETALL', KEYS[1])`;

const REMOVE_SCRIPT = `
local all = redis.call('HGETALL', KEYS[1])
if #all == 0 then
  redis.call('SREM', KEYS[2], ARGV[3])
  return false
end
local f = redis.call('HMGET', KEYS[1], 'status', 'callerId', 'calleeId')
if ARGV[1] == '1' and f[1] ~= 'ringing' then return false end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[3])
for i = 2, 3 do
  local claim = ARGV[2] .. f[i]
  if redis.call('GET', claim) == ARGV[3] then redis.call('DEL', claim) end
end
return all`;

export interface RedisCallStoreOptions {
  prefix: string;
  /** How long a call rings; its keys live a minute longer. */
  ringTimeoutMs: number;
}

export class RedisCallStore implements CallStore {
  readonly #link: RedisLink;
  readonly #prefix: string;
  readonly #ringingTtlMs: number;

  constructor(link: RedisLink, { prefix, ringTimeoutMs }: RedisCallStoreOptions) {
    this.#link = link;
    this.#prefix = prefix;
    this.#ringingTtlMs = ringTimeoutMs + 60_000;
  }

  async create(call: Call): Promise<boolean> {
    const fields = Object.entries(toHash(call)).flat();
    const created = await this.#link.call((redis) =>
      redis.eval(CREATE_SCRIPT, {
        keys: [
          this.#callKey(call.id),
          this.#claimKey(call.callerId),
          this.#claimKey(call.calleeId),
          this.#allKey,
        ],
        arguments: [call.id, String(this.#ringingTtlMs), ...fields],
      }),
    );
    return Number(created) === 1;
  }

  async get(callId: string): Promise<Call | null> {
    const hash = await this.#link.call((redis) => redis.hGetAll(this.#callKey(callId)));
    return fromHash(hash);
  }

  async callOf(userId: string): Promise<Call | null> {
    const callId = await this.#link.call((redis) => redis.get(this.#claimKey(userId)));
    return callId ? this.get(callId) : null;
  }

  async answer(callId: string, connectionId: string, nodeId: string, at: number): Promise<Call | null> {
    const reply = await this.#link.call((redis) =>
      redis.eval(ANSWER_SCRIPT, {
        keys: [this.#callKey(callId)],
        arguments: [connectionId, String(at), String(CONNECTED_TTL_MS), this.#claimKey(''), nodeId],
      }),
    );
    return fromPairs(reply);
  }

  async remove(callId: string, { onlyIfRinging = false } = {}): Promise<Call | null> {
    const reply = await this.#link.call((redis) =>
      redis.eval(REMOVE_SCRIPT, {
        keys: [this.#callKey(callId), this.#allKey],
        arguments: [onlyIfRinging ? '1' : '0', this.#claimKey(''), callId],
      }),
    );
    return fromPairs(reply);
  }

  async all(): Promise<Call[]> {
    const ids = await this.#link.call((redis) => redis.sMembers(this.#allKey));
    const calls: Call[] = [];
    for (const id of ids) {
      const call = await this.get(id);
      if (call) calls.push(call);
      // Its keys expired (every process holding it died long ago): forget the id.
      else await this.#link.call((redis) => redis.sRem(this.#allKey, id));
    }
    return calls;
  }

  get #allKey(): string {
    return `${this.#prefix}calls`;
  }

  #callKey(callId: string): string {
    return `${this.#prefix}call:${callId}`;
  }

  #claimKey(userId: string): string {
    return `${this.#prefix}call-of:${userId}`;
  }
}

function toHash(call: Call): Record<string, string> {
  return {
    id: call.id,
    callerId: call.callerId,
    calleeId: call.calleeId,
    callerConnectionId: call.callerConnectionId,
    calleeConnectionId: call.calleeConnectionId ?? '',
    callerNodeId: call.callerNodeId,
    calleeNodeId: call.calleeNodeId ?? '',
    status: call.status,
    createdAt: String(call.createdAt),
    answeredAt: call.answeredAt === null ? '' : String(call.answeredAt),
  };
}

function fromHash(hash: Record<string, string>): Call | null {
  if (!hash.id || (hash.status !== 'ringing' && hash.status !== 'connected')) return null;
  return {
    id: hash.id,
    callerId: hash.callerId ?? '',
    calleeId: hash.calleeId ?? '',
    callerConnectionId: hash.callerConnectionId ?? '',
    calleeConnectionId: hash.calleeConnectionId || null,
    callerNodeId: hash.callerNodeId ?? '',
    calleeNodeId: hash.calleeNodeId || null,
    status: hash.status,
    createdAt: Number(hash.createdAt),
    answeredAt: hash.answeredAt ? Number(hash.answeredAt) : null,
  };
}

/** A script's HGETALL answer (a flat list of field, value) as a Call. */
function fromPairs(reply: unknown): Call | null {
  if (!Array.isArray(reply)) return null;
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
  return fromHash(hash);
}
