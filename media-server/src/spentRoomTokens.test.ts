/**
 * Spent room tokens kept in Redis (the real one): a media server that restarts, or another
 * process, refuses a token spent before; while Redis is away the process's memory decides.
 */
import { randomUUID } from 'node:crypto';
import { RedisLink } from '@voice/bus';
import { ROOM_TOKEN } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roomTokenAuthenticator, roomTokenVerifier } from './roomToken.ts';
import { RedisSpentRoomTokens } from './spentRoomTokens.ts';
import { signRoomToken, TEST_MEDIA_SECRET } from './testing/roomTokens.ts';
import type { Logger } from './types.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Keeps what is logged, so a test can see the warning. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} };
}

const rtcUrl = (token: string) =>
  new URL(`http://media/rtc?${new URLSearchParams({ roomId: 'room-1', peerId: 'user-1', token })}`);

describe('spent room tokens in Redis', () => {
  let link: RedisLink;
  let spent: RedisSpentRoomTokens;
  const logger = recordingLogger();
  beforeAll(async () => {
    link = await RedisLink.connect(REDIS_URL, logger);
    spent = new RedisSpentRoomTokens(link, `test:${randomUUID()}:`);
  });
  afterAll(() => link?.close());

  /** A media server process as it starts: memory empty, the shared record in Redis. */
  const freshProcess = () => roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET), { spent, logger });

  it('refuses, after a restart, a token spent before it, and keeps the record until the token expires', async () => {
    const token = signRoomToken('room-1', 'user-1');
    expect(await freshProcess()(rtcUrl(token))).toMatchObject({ peerId: 'user-1', roomId: 'room-1' });
    // The restarted process has forgotten it; Redis has not.
    expect(await freshProcess()(rtcUrl(token))).toBeNull();
    const { jti, exp } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {
      jti: string;
      exp: number;
    };
    const left = await link.client.pTTL(spent.key(jti));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(exp * 1000 - Date.now() + 1000);
    expect(left).toBeLessThanOrEqual(ROOM_TOKEN.ttlSeconds * 1000);
    // Another token is not held back by it.
    expect(await freshProcess()(rtcUrl(signRoomToken('room-1', 'user-1')))).not.toBeNull();
  });

  it('spends a jti once, whoever asks first', async () => {
    const jti = randomUUID();
    const until = Date.now() + 10_000;
    const answers = await Promise.all([
      spent.spend(jti, until),
      spent.spend(jti, until),
      spent.spend(jti, until),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('leaves the decision to the process while Redis does not answer, and says so', async () => {
    const away = await RedisLink.connect(REDIS_URL, logger);
    await away.close();
    const alone = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET), {
      spent: new RedisSpentRoomTokens(away, `test:${randomUUID()}:`),
      logger,
    });
    const token = signRoomToken('room-1', 'user-1');
    expect(await alone(rtcUrl(token))).not.toBeNull();
    // Its own memory still spends the token.
    expect(await alone(rtcUrl(token))).toBeNull();
    expect(logger.warnings.some((message) => message.startsWith('room tokens: Redis did not answer'))).toBe(
      true,
    );
  });
});
