/**
 * What one participant's page received and sent, read in ONE page.evaluate: the getStats() of
 * every peer connection the page made (kept by browser-bots' init script under PEER_CONNECTIONS),
 * inbound audio summed over the receivers and its energy credited to the remote member whose
 * audio element (`data-peer-id`, as in browser-bots' roomAudio) holds the track.
 */
import { PEER_CONNECTIONS } from '@voice/browser-bots';
import type { Page } from 'playwright-core';

/** The page's cumulative counters at one moment, as the page reports them. */
export interface PageCounters {
  packetsReceived: number;
  packetsLost: number;
  /** Mean jitter of the inbound audio streams now, ms; null without any. */
  jitterMs: number | null;
  rttMs: number | null;
  /** Samples concealed for lost or late packets (silent concealment, DTX comfort noise, left out). */
  concealedSamples: number;
  totalSamplesReceived: number;
  /** totalAudioEnergy per remote member; a track no element names goes to `unmatchedAs`. */
  energyBySpeaker: Record<string, number>;
  bytesSent: number;
  /** Peer connections not closed. */
  openConnections: number;
}

/**
 * Reads the page's counters. `unmatchedAs` names the sender of inbound audio that no room audio
 * element claims: the other party in a 1:1 call, `?` in a room.
 */
export function readCounters(page: Page, unmatchedAs: string): Promise<PageCounters> {
  return page.evaluate(collectInPage, { key: PEER_CONNECTIONS, unmatchedAs });
}

/** Runs in the page. Kept free of helpers so it serialises as one function. */
async function collectInPage({
  key,
  unmatchedAs,
}: {
  key: string;
  unmatchedAs: string;
}): Promise<PageCounters> {
  const memberOfTrack = new Map<string, string>();
  for (const element of document.querySelectorAll<HTMLAudioElement>('audio[data-peer-id]')) {
    const track = (element.srcObject as MediaStream | null)?.getAudioTracks()[0];
    if (track && element.dataset.peerId) memberOfTrack.set(track.id, element.dataset.peerId);
  }
  const out: PageCounters = {
    packetsReceived: 0,
    packetsLost: 0,
    jitterMs: null,
    rttMs: null,
    concealedSamples: 0,
    totalSamplesReceived: 0,
    energyBySpeaker: {},
    bytesSent: 0,
    openConnections: 0,
  };
  let jitterSum = 0;
  let jitterCount = 0;
  let pairRtt: number | null = null;
  let remoteRtt: number | null = null;
  const connections = (window as unknown as Record<string, RTCPeerConnection[] | undefined>)[key] ?? [];
  const reports = await Promise.all(
    connections.filter((pc) => pc.connectionState !== 'closed').map((pc) => pc.getStats()),
  );
  out.openConnections = reports.length;
  for (const report of reports) {
    for (const s of report.values() as IterableIterator<Record<string, unknown> & { type: string }>) {
      const num = (value: unknown) => (typeof value === 'number' ? value : 0);
      if (s.type === 'inbound-rtp' && s.kind === 'audio') {
        out.packetsReceived += num(s.packetsReceived);
        out.packetsLost += num(s.packetsLost);
        // Concealment of a loss, not the comfort noise played while a speaker is silent (DTX).
        out.concealedSamples += num(s.concealedSamples) - num(s.silentConcealedSamples);
        out.totalSamplesReceived += num(s.totalSamplesReceived);
        if (typeof s.jitter === 'number' && num(s.packetsReceived) > 0) {
          jitterSum += s.jitter * 1000;
          jitterCount += 1;
        }
        const from = memberOfTrack.get(String(s.trackIdentifier)) ?? unmatchedAs;
        out.energyBySpeaker[from] = (out.energyBySpeaker[from] ?? 0) + num(s.totalAudioEnergy);
      } else if (s.type === 'outbound-rtp' && s.kind === 'audio') {
        out.bytesSent += num(s.bytesSent);
      } else if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') {
        if (typeof s.currentRoundTripTime === 'number')
          pairRtt = Math.max(pairRtt ?? 0, s.currentRoundTripTime * 1000);
      } else if (s.type === 'remote-inbound-rtp' && typeof s.roundTripTime === 'number') {
        remoteRtt = Math.max(remoteRtt ?? 0, s.roundTripTime * 1000);
      }
    }
  }
  out.jitterMs = jitterCount > 0 ? jitterSum / jitterCount : null;
  out.rttMs = pairRtt ?? remoteRtt;
  return out;
}

/** Total energy received from anyone. */
export const totalEnergy = (counters: PageCounters) =>
  Object.values(counters.energyBySpeaker).reduce((sum, energy) => sum + energy, 0);
