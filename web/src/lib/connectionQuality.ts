/**
 * How good a voice connection is, from its WebRTC statistics: the round trip time of the
 * connection in use and the share of incoming audio packets lost since the last look. Good,
 * fair or poor, with thresholds where voice starts to suffer (ITU-T G.114 puts the comfortable
 * one-way delay below 150 ms; Opus hides a couple of percent of loss, not ten).
 */

export type Quality = 'good' | 'fair' | 'poor';

/** One look at the statistics. */
export interface ConnectionSample {
  /** The round trip time in ms, when the statistics give one. */
  rttMs: number | null;
  /** Incoming audio packets lost and received so far (both only grow). */
  packetsLost: number;
  packetsReceived: number;
}

/** What the voice panel shows. */
export interface ConnectionQuality {
  quality: Quality;
  rttMs: number | null;
  /** Percent of incoming packets lost since the previous look; null before there are two. */
  lossPercent: number | null;
}

export const QUALITY_LIMITS = {
  good: { rttMs: 200, lossPercent: 2 },
  fair: { rttMs: 400, lossPercent: 8 },
} as const;

type Stat = Record<string, unknown> & { type?: string };
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** The sample in `reports` (a call's one peer connection, or a room's two transports). */
export function sampleOf(reports: Iterable<RTCStatsReport>): ConnectionSample {
  let pairRtt: number | null = null;
  let remoteRtt: number | null = null;
  let packetsLost = 0;
  let packetsReceived = 0;
  for (const report of reports) {
    report.forEach((stat: Stat) => {
      if (stat.type === 'candidate-pair' && stat.state === 'succeeded' && stat.nominated !== false) {
        const rtt = num(stat.currentRoundTripTime);
        if (rtt !== null) pairRtt = Math.max(pairRtt ?? 0, rtt * 1000);
      } else if (stat.type === 'remote-inbound-rtp') {
        const rtt = num(stat.roundTripTime);
        if (rtt !== null) remoteRtt = Math.max(remoteRtt ?? 0, rtt * 1000);
      } else if (stat.type === 'inbound-rtp' && (stat.kind ?? stat.mediaType) === 'audio') {
        packetsLost += Math.max(0, num(stat.packetsLost) ?? 0);
        packetsReceived += num(stat.packetsReceived) ?? 0;
      }
    });
  }
  return { rttMs: pairRtt ?? remoteRtt, packetsLost, packetsReceived };
}

/** Percent of packets lost between two samples; null when nothing arrived or counters went back. */
export function lossBetween(before: ConnectionSample, after: ConnectionSample): number | null {
  const lost = after.packetsLost - before.packetsLost;
  const received = after.packetsReceived - before.packetsReceived;
  if (lost < 0 || received < 0 || lost + received === 0) return null;
  return (lost / (lost + received)) * 100;
}

export function qualityOf(rttMs: number | null, lossPercent: number | null): Quality {
  const rtt = rttMs ?? 0;
  const loss = lossPercent ?? 0;
  if (rtt <= QUALITY_LIMITS.good.rttMs && loss < QUALITY_LIMITS.good.lossPercent) return 'good';
  if (rtt <= QUALITY_LIMITS.fair.rttMs && loss < QUALITY_LIMITS.fair.lossPercent) return 'fair';
  return 'poor';
}

/** The quality from the previous sample (if any) and a new one. */
export function assess(before: ConnectionSample | null, after: ConnectionSample): ConnectionQuality {
  const lossPercent = before ? lossBetween(before, after) : null;
  return { quality: qualityOf(after.rttMs, lossPercent), rttMs: after.rttMs, lossPercent };
}
