import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client.ts';
import { MICROPHONE_ERROR_KEYS, MicrophoneError } from '../../media/microphoneErrors.ts';
import { RoomConnectError } from './RoomClient.ts';
import { mayPass } from './RoomSession.ts';

const answer = (status: number, code: string) => new ApiError(status, code, code);

describe('mayPass: whether a failed rejoin is tried again', () => {
  it('tries again without an answer, on a busy or restarting service, and on the media server', () => {
    expect(mayPass(new ApiError(0, null, 'Failed to fetch'))).toBe(true);
    expect(mayPass(answer(503, 'SERVICE_UNAVAILABLE'))).toBe(true);
    expect(mayPass(answer(500, 'INTERNAL'))).toBe(true);
    expect(mayPass(answer(429, 'RATE_LIMITED'))).toBe(true);
    expect(mayPass(answer(408, 'TIMEOUT'))).toBe(true);
    expect(mayPass(new RoomConnectError('unreachable'))).toBe(true);
    expect(mayPass(new RoomConnectError('timeout', 'join'))).toBe(true);
    expect(mayPass(new Error('request closed'))).toBe(true);
  });

  it('ends at once on a final answer: gone, removed, full, locked, signed out; or no microphone', () => {
    expect(mayPass(answer(404, 'ROOM_NOT_FOUND'))).toBe(false);
    expect(mayPass(answer(403, 'KICKED_RECENTLY'))).toBe(false);
    expect(mayPass(answer(409, 'ROOM_FULL'))).toBe(false);
    expect(mayPass(answer(423, 'ROOM_LOCKED'))).toBe(false);
    expect(mayPass(answer(401, 'UNAUTHORIZED'))).toBe(false);
    expect(
      mayPass(new MicrophoneError('denied', 'NotAllowedError', '', { key: MICROPHONE_ERROR_KEYS.denied })),
    ).toBe(false);
  });
});
