/**
 * Checks every frame a protoo peer sends before protoo-server parses it.
 *
 * protoo-server parses frames inside websocket-node's frame handler, outside any try:
 * a `null` frame makes its parser throw and the whole process exit. The guard sits in
 * front of that parser and lets through only well-formed protoo messages; a peer that
 * keeps sending anything else is closed with 1008 (policy violation).
 *
 * Nothing here knows about the app: the media server's `/rtc` endpoint uses it as is.
 */

/** Limits of what a frame may hold. */
export interface FrameLimits {
  /** Longest method name, in characters. */
  maxMethodLength: number;
  /** Deepest nesting of objects and arrays in a message (the message itself is depth 1). */
  maxDepth: number;
}

export interface FrameGuardOptions extends Partial<FrameLimits> {
  /** Refused frames a connection may send before it is closed; a real protoo client sends none. */
  maxInvalidFrames?: number;
  /** Told of each refused frame, for a log line; must not throw (it is caught if it does). */
  onInvalid?: (reason: string) => void;
}

export const DEFAULT_FRAME_LIMITS: Readonly<FrameLimits> = Object.freeze({
  maxMethodLength: 64,
  maxDepth: 16,
});
const DEFAULT_MAX_INVALID_FRAMES = 10;

/** WebSocket close code for a peer that broke the protocol's rules (RFC 6455, 7.4.1). */
export const CLOSE_POLICY_VIOLATION = 1008;

const KINDS = ['request', 'response', 'notification'] as const;

/** Why `text` is not a protoo message, or null when it is one protoo-server can parse safely. */
export function frameProblem(text: string, limits: FrameLimits = DEFAULT_FRAME_LIMITS): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'invalid JSON';
  }
  if (!isPlainObject(value)) return 'not an object';
  const shapeProblem = structureProblem(value, limits.maxDepth);
  if (shapeProblem) return shapeProblem;

  const kinds = KINDS.filter((kind) => value[kind] !== undefined);
  if (kinds.length !== 1 || value[kinds[0] as string] !== true) {
    return 'exactly one of request, response, notification must be true';
  }
  if ('data' in value && !isPlainObject(value.data)) return 'data must be an object';
  switch (kinds[0]) {
    case 'request':
      return idProblem(value.id) ?? methodProblem(value.method, limits.maxMethodLength);
    case 'notification':
      return methodProblem(value.method, limits.maxMethodLength);
    default:
      if (value.ok !== undefined && typeof value.ok !== 'boolean') return 'ok must be a boolean';
      if (value.errorCode !== undefined && !Number.isFinite(value.errorCode)) return 'bad errorCode';
      if (value.errorReason !== undefined && typeof value.errorReason !== 'string') return 'bad errorReason';
      return idProblem(value.id);
  }
}

function idProblem(id: unknown): string | null {
  return Number.isSafeInteger(id) && (id as number) >= 0 ? null : 'id must be a non-negative integer';
}

function methodProblem(method: unknown, maxLength: number): string | null {
  if (typeof method !== 'string' || method.length === 0 || method.length > maxLength) {
    return 'method must be a short non-empty string';
  }
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Nesting deeper than `maxDepth`, or a `__proto__` key anywhere (harmless as JSON.parse
 * makes it, a prototype swap once some code merges it into another object). Iterative,
 * so a deep frame cannot overflow the stack here.
 */
function structureProblem(root: object, maxDepth: number): string | null {
  const stack: Array<[value: unknown, depth: number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return 'nested too deeply';
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return 'forbidden key __proto__';
      stack.push([(value as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return null;
}

/** A websocket-node message event. */
interface WsMessage {
  type?: unknown;
  utf8Data?: unknown;
}
type MessageListener = (this: unknown, message: WsMessage) => void;

/** The part of a websocket-node connection the guard uses. */
interface WsConnection {
  listeners(event: 'message'): MessageListener[];
  removeListener(event: 'message', listener: MessageListener): unknown;
  on(event: 'message', listener: MessageListener): unknown;
  drop(code: number, description: string): void;
  /** websocket-node sends a text frame with it. */
  sendUTF?(data: string): void;
}

/** protoo's error code for a request the guard refused (like HTTP's 400). */
export const BAD_REQUEST_CODE = 400;

/**
 * The id of a refused frame that is otherwise a request (an object with `request: true` and a
 * valid id): the sender is waiting for an answer to it and gets a clear error instead of none.
 */
function refusedRequestId(text: string): number | null {
  try {
    const value: unknown = JSON.parse(text);
    if (!isPlainObject(value) || value.request !== true) return null;
    return idProblem(value.id) === null ? (value.id as number) : null;
  } catch {
    return null;
  }
}

function isWsConnection(value: unknown): value is WsConnection {
  const c = value as Partial<Record<keyof WsConnection, unknown>> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.listeners === 'function' &&
    typeof c.removeListener === 'function' &&
    typeof c.on === 'function' &&
    typeof c.drop === 'function'
  );
}

/**
 * Puts the guard in front of the message handling of a transport that protoo-server's
 * WebSocketServer returned from `accept()`. Call it at once, in the same tick as
 * `accept()`. Throws if the transport is not the websocket-node one this was written
 * for (protoo-server changed): refuse the connection then, rather than run unguarded.
 */
export function guardProtooTransport(transport: unknown, options: FrameGuardOptions = {}): void {
  // protoo-server 4 keeps the websocket-node connection here and listens to its 'message'.
  const connection = (transport as { _connection?: unknown } | null)?._connection;
  if (!isWsConnection(connection)) throw new TypeError('frameGuard: not a protoo-server WebSocket transport');
  const parsers = connection.listeners('message');
  if (parsers.length !== 1) throw new TypeError('frameGuard: unexpected message listeners on the transport');
  for (const parser of parsers) connection.removeListener('message', parser);

  const limits: FrameLimits = {
    maxMethodLength: options.maxMethodLength ?? DEFAULT_FRAME_LIMITS.maxMethodLength,
    maxDepth: options.maxDepth ?? DEFAULT_FRAME_LIMITS.maxDepth,
  };
  const maxInvalid = options.maxInvalidFrames ?? DEFAULT_MAX_INVALID_FRAMES;
  let invalid = 0;
  let dropped = false;

  const refuse = (reason: string) => {
    invalid += 1;
    try {
      options.onInvalid?.(reason);
    } catch {
      // A faulty reporter must not undo the guard.
    }
    if (invalid >= maxInvalid && !dropped) {
      dropped = true;
      connection.drop(CLOSE_POLICY_VIOLATION, 'Invalid protoo messages');
    }
  };

  // Runs inside websocket-node's frame handler: nothing may escape from here.
  connection.on('message', function guard(this: unknown, message: WsMessage) {
    if (dropped) return;
    try {
      const problem =
        message.type === 'utf8' && typeof message.utf8Data === 'string'
          ? frameProblem(message.utf8Data, limits)
          : 'not a text frame';
      if (problem) {
        const id = message.type === 'utf8' ? refusedRequestId(String(message.utf8Data)) : null;
        if (id !== null && typeof connection.sendUTF === 'function') {
          const reply = { response: true, id, ok: false, errorCode: BAD_REQUEST_CODE, errorReason: problem };
          connection.sendUTF(JSON.stringify(reply));
        }
        refuse(problem);
        return;
      }
      for (const parser of parsers) parser.call(this, message);
    } catch (error) {
      refuse(`frame handling threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
