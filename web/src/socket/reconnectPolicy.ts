/**
 * When a ReconnectingPeer tries again (SPEC section 9, "Socket"): the delay starts at
 * SOCKET.reconnectDelayMs, doubles per failed attempt up to SOCKET.reconnectDelayMaxMs,
 * and is spread by ±SOCKET.randomizationFactor so that a restarted server is not hit
 * by every browser in the same instant. Attempts never run out.
 */
import { SOCKET } from '@voice/protocol';

/** The knobs of the policy; the spec's values by default. */
export interface ReconnectOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** 0 for none; 0.5 spreads a delay d over [0.5 d, 1.5 d], never beyond maxDelayMs. */
  randomizationFactor: number;
  maxAttempts: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = {
  baseDelayMs: SOCKET.reconnectDelayMs,
  maxDelayMs: SOCKET.reconnectDelayMaxMs,
  randomizationFactor: SOCKET.randomizationFactor,
  maxAttempts: SOCKET.reconnectAttempts,
};

const GROWTH = SOCKET.reconnectFactor;

/**
 * Milliseconds to wait before retry number `attempt` (0 for the first retry after a
 * loss), or null once the attempts are used up. `random` returns a number in [0, 1).
 */
export function reconnectDelay(
  attempt: number,
  random: () => number = Math.random,
  options: ReconnectOptions = DEFAULT_RECONNECT,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 0) throw new TypeError(`invalid attempt ${attempt}`);
  if (attempt >= options.maxAttempts) return null;
  // Capping before the spread keeps late attempts spread too, instead of all landing on the cap.
  const nominal = Math.min(options.baseDelayMs * GROWTH ** attempt, options.maxDelayMs);
  const spread = options.randomizationFactor * (2 * random() - 1);
  return Math.round(Math.min(nominal * (1 + spread), options.maxDelayMs));
}
