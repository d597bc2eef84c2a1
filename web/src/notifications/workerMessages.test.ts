import { describe, expect, it } from 'vitest';
import { messageFromQuery, parseWorkerMessage } from './workerMessages.ts';

describe('parseWorkerMessage', () => {
  it("accepts the spec's five messages", () => {
    const messages = [
      { type: 'accept-call', callId: 'c1' },
      { type: 'reject-call', callId: 'c1' },
      { type: 'call-dismissed', callId: 'c1' },
      { type: 'accept-friend-request', userId: 'u1' },
      { type: 'join-room', roomId: 'r1' },
      { type: 'join-room', roomId: 'r1', invitationId: 'i1' },
    ];
    for (const message of messages) expect(parseWorkerMessage(message)).toEqual(message);
  });

  it('drops fields a message does not have', () => {
    expect(parseWorkerMessage({ type: 'accept-call', callId: 'c1', extra: true })).toEqual({
      type: 'accept-call',
      callId: 'c1',
    });
  });

  it('refuses anything else', () => {
    for (const value of [
      null,
      'accept-call',
      { type: 'end-call', callId: 'c1' },
      { type: 'accept-call' },
      { type: 'accept-call', callId: '' },
      { type: 'accept-friend-request', userId: 7 },
      { type: 'join-room', roomId: 'r1', invitationId: null },
    ]) {
      expect(parseWorkerMessage(value)).toBeNull();
    }
  });
});

describe('messageFromQuery', () => {
  it('reads the message a window opened by the worker carries', () => {
    const message = { type: 'accept-call', callId: 'c1' };
    const search = `?tab=friends&notification=${encodeURIComponent(JSON.stringify(message))}`;
    expect(messageFromQuery(search)).toEqual(message);
  });

  it('ignores a missing, malformed or unknown message', () => {
    expect(messageFromQuery('')).toBeNull();
    expect(messageFromQuery('?notification=%7Bnot-json')).toBeNull();
    expect(messageFromQuery(`?notification=${encodeURIComponent('{"type":"hack"}')}`)).toBeNull();
  });
});
