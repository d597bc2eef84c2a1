/**
 * A MOS estimate per participant from the ITU-T G.107 E-model, with figures chosen for Opus:
 *
 *   R = (R0 − Is) − Id − Ie,eff + A          R0 − Is = 93.2 (G.107's default values)
 *   Id     = Idd(Ta), Ta the mouth-to-ear delay = RTT/2 + jitter buffer + codec (20 ms frame +
 *            6.5 ms look-ahead = 26.5 ms). Echo is cancelled in the browsers (TELR at its 65 dB
 *            default), which leaves Idte and Idle near zero: only Idd counts.
 *   Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl)
 *   MOS    = 1 + 0.035 R + R (R − 60)(100 − R) · 7·10⁻⁶, clamped to 1 … 4.5
 *
 * Opus is not in G.113's tables, so Ie and Bpl are ours (README "MOS"): Ie = 0 because Opus at the
 * app's wideband bitrate is at least as clean as G.711 (Ie = 0) on G.107's narrowband scale,
 * whose ceiling is R = 93.2; Bpl = 25, G.113's figure for G.711 with packet-loss concealment
 * (25.1) and the middle of the 20–30 commonly used for Opus with in-band FEC. Losses are taken as
 * random (BurstR = 1): the per-second counters cannot tell bursts apart. A = 0 (fixed access).
 */

/** R0 − Is with G.107's default values. */
export const R_BASE = 93.2;
/** Opus's equipment impairment on G.107's narrowband scale. */
export const OPUS_IE = 0;
/** Opus's packet-loss robustness (PLC and in-band FEC). */
export const OPUS_BPL = 25;
/** One Opus frame (20 ms) and its encoder look-ahead (6.5 ms). */
export const OPUS_CODEC_DELAY_MS = 26.5;
/** WebRTC's jitter buffer holds at least about a frame even on a clean network. */
export const MIN_JITTER_BUFFER_MS = 20;

/** What the estimate reads of one participant's reception. */
export interface EmodelInput {
  /** Packet loss, percent. */
  lossPct: number;
  /** Round-trip time, ms (typical: the participant's median). */
  rttMs: number;
  /** Jitter buffer delay, ms, when the page measured it; otherwise estimated from the jitter. */
  jitterBufferMs?: number | null;
  /** Inbound jitter, ms (typical: the participant's median), for the estimate. */
  jitterMs?: number | null;
  /** Burst ratio (1: random loss). */
  burstRatio?: number;
}

/** The jitter buffer: as measured, or twice the jitter with a frame's floor. */
export function jitterBufferMs(input: Pick<EmodelInput, 'jitterBufferMs' | 'jitterMs'>): number {
  if (input.jitterBufferMs != null) return input.jitterBufferMs;
  return Math.max(MIN_JITTER_BUFFER_MS, 2 * (input.jitterMs ?? 0));
}

/** Mouth-to-ear delay Ta, ms. */
export function mouthToEarMs(input: EmodelInput): number {
  return input.rttMs / 2 + jitterBufferMs(input) + OPUS_CODEC_DELAY_MS;
}

/** G.107's delay impairment Idd for a mouth-to-ear delay `ta` (ms): 0 up to 100 ms. */
export function delayImpairment(ta: number): number {
  if (ta <= 100) return 0;
  const x = Math.log2(ta / 100);
  return 25 * ((1 + x ** 6) ** (1 / 6) - 3 * (1 + (x / 3) ** 6) ** (1 / 6) + 2);
}

/** Ie,eff for packet loss `lossPct` (%). */
export function effectiveEquipmentImpairment(lossPct: number, burstRatio = 1): number {
  const ppl = Math.min(Math.max(lossPct, 0), 100);
  return OPUS_IE + ((95 - OPUS_IE) * ppl) / (ppl / burstRatio + OPUS_BPL);
}

/** The rating factor R. */
export function rFactor(input: EmodelInput): number {
  return (
    R_BASE -
    delayImpairment(mouthToEarMs(input)) -
    effectiveEquipmentImpairment(input.lossPct, input.burstRatio ?? 1)
  );
}

/** G.107's R → MOS (conversational quality), clamped to 1 … 4.5. */
export function mosFromR(r: number): number {
  if (r <= 0) return 1;
  if (r >= 100) return 4.5;
  const mos = 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6;
  return Math.min(4.5, Math.max(1, mos));
}

/** The MOS estimate for one participant's reception. */
export function estimateMos(input: EmodelInput): number {
  return mosFromR(rFactor(input));
}
