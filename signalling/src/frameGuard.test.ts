import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CLOSE_POLICY_VIOLATION, frameProblem, guardProtooTransport } from './frameGuard.ts';

describe('frameProblem()', () => {
  it('lets well-formed protoo requests, responses and notifications through', () => {
    for (const message of [
      { request: true, id: 1, method: 'accept-friend-request', data: { userId: 'x' } },
      { request: true, id: 0, method: 'm' },
      { response: true, id: 7, ok: true, data: {} },
      { response: true, id: 7, errorCode: 400, errorReason: 'nope' },
      { notification: true, method: 'hello', data: { nested: [1, { a: 'b' }] } },
    ]) {
      expect(frameProblem(JSON.stringify(message)), JSON.stringify(message)).toBeNull();
    }
  });

  it('refuses everything protoo-server cannot parse safely', () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
    for (const text of [
      'null',
      'true',
      '0',
      '"text"',
      '[]',
      '[{"request":true,"id":1,"method":"m"}]',
      '',
      '{',
      'undefined',
      '{}',
      '{"request":1,"id":1,"method":"m"}',
      '{"request":true,"response":true,"id":1,"method":"m"}',
      '{"request":true,"id":"1","method":"m"}',
      '{"request":true,"id":-1,"method":"m"}',
      '{"request":true,"id":1.5,"method":"m"}',
      '{"request":true,"id":1e400,"method":"m"}',
      '{"request":true,"id":9007199254740993,"method":"m"}',
      '{"request":true,"id":null,"method":"m"}',
      '{"request":true,"method":"m"}',
      '{"request":true,"id":1}',
      '{"request":true,"id":1,"method":""}',
      '{"request":true,"id":1,"method":5}',
      `{"request":true,"id":1,"method":"${'m'.repeat(65)}"}`,
      '{"request":true,"id":1,"method":"m","data":null}',
      '{"request":true,"id":1,"method":"m","data":[]}',
      '{"request":true,"id":1,"method":"m","data":"x"}',
      '{"request":true,"id":1,"method":"m","data":{"__proto__":{"admin":true}}}',
      '{"notification":true,"method":null}',
      '{"response":true,"ok":true}',
      '{"response":true,"id":1,"ok":"yes"}',
      '{"response":true,"id":1,"errorCode":"x"}',
      JSON.stringify({ request: true, id: 1, method: 'm', data: deep(40) }),
      `{"request":true,"id":1,"method":"m","data":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    ]) {
      expect(frameProblem(text), text.slice(0, 80)).not.toBeNull();
    }
  });
});

/** A stand-in for the websocket-node connection inside a protoo-server transport. */
class FakeConnection extends EventEmitter {
  dropped: [number, string] | null = null;
  readonly sent: unknown[] = [];
  drop(code: number, reason: string) {
    this.dropped = [code, reason];
  }
  sendUTF(data: string) {
    this.sent.push(JSON.parse(data));
  }
}

function guarded(maxInvalidFrames = 3) {
  const connection = new FakeConnection();
  const parsed: string[] = [];
  // protoo-server's own parser: throws on `null`, as the real one does.
  connection.on('message', (m: { utf8Data: string }) => {
    const value = JSON.parse(m.utf8Data);
    if (value.request) parsed.push(value.method);
  });
  const reasons: string[] = [];
  guardProtooTransport({ _connection: connection }, { maxInvalidFrames, onInvalid: (r) => reasons.push(r) });
  const send = (utf8Data: string) => connection.emit('message', { type: 'utf8', utf8Data });
  return { connection, parsed, reasons, send };
}

describe('guardProtooTransport()', () => {
  it('passes valid frames to protoo and never lets a bad one reach it', () => {
    const { parsed, reasons, send, connection } = guarded(10);
    send('null');
    send('{"request":true,"id":1,"method":"ok"}');
    connection.emit('message', { type: 'binary', binaryData: Buffer.from([1, 2]) });
    expect(parsed).toEqual(['ok']);
    expect(reasons).toEqual(['not an object', 'not a text frame']);
    expect(connection.dropped).toBeNull();
  });

  it('answers a refused request with a 400 error, so its sender is not left waiting', () => {
    const { parsed, send, connection } = guarded(10);
    send('{"request":true,"id":7,"method":"join-room","data":"room-1"}');
    send('{"request":true,"id":8,"method":"join-room","data":[1,2]}');
    send('{"notification":true,"method":"n","data":"x"}');
    expect(parsed).toEqual([]);
    expect(connection.sent).toEqual([
      { response: true, id: 7, ok: false, errorCode: 400, errorReason: 'data must be an object' },
      { response: true, id: 8, ok: false, errorCode: 400, errorReason: 'data must be an object' },
    ]);
  });

  it('closes the connection with 1008 after too many invalid frames, then ignores it', () => {
    const { parsed, send, connection } = guarded(3);
    send('1');
    send('2');
    expect(connection.dropped).toBeNull();
    send('3');
    expect(connection.dropped?.[0]).toBe(CLOSE_POLICY_VIOLATION);
    send('{"request":true,"id":1,"method":"late"}');
    expect(parsed).toEqual([]);
  });

  it('refuses a transport it does not know, so the caller can close it unguarded', () => {
    expect(() => guardProtooTransport({})).toThrow(TypeError);
    expect(() => guardProtooTransport(null)).toThrow(TypeError);
    expect(() => guardProtooTransport({ _connection: new FakeConnection() })).toThrow(/listeners/);
  });

  it('keeps a throwing downstream parser or reporter inside the guard', () => {
    const connection = new FakeConnection();
    connection.on('message', () => {
      throw new Error('boom');
    });
    guardProtooTransport(
      { _connection: connection },
      {
        onInvalid: () => {
          throw new Error('reporter');
        },
      },
    );
    expect(() =>
      connection.emit('message', { type: 'utf8', utf8Data: '{"request":true,"id":1,"method":"m"}' }),
    ).not.toThrow();
  });
});
