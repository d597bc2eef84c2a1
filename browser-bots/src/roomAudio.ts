/**
 * What a page in a group room receives from each member: its inbound audio matched to members
 * through the room's audio elements (`data-peer-id`), and a wait for speech from members.
 */
import { expect, type Page } from '@playwright/test';
import { PEER_CONNECTIONS } from './CallBrowser.ts';
import type { Person } from './people.ts';

/**
 * Bytes and decoded energy received from each member, by their id, on the track (its id) the
 * page plays them from now: a member who rejoined arrives on a new track, counted from zero.
 */
export type RoomAudio = Record<string, { bytes: number; energy: number; track: string }>;

/**
 * What the page receives from each member: inbound RTP matched to members through their audio
 * elements, on the page's peer connections from the `fromConnection`th on (0: all of them).
 */
export function roomAudio(page: Page, fromConnection = 0): Promise<RoomAudio> {
  return page.evaluate(
    async ([key, from]) => {
      const memberOfTrack = new Map<string, string>();
      for (const element of document.querySelectorAll<HTMLAudioElement>('audio[data-peer-id]')) {
        const track = (element.srcObject as MediaStream | null)?.getAudioTracks()[0];
        if (track && element.dataset.peerId) memberOfTrack.set(track.id, element.dataset.peerId);
      }
      const out: Record<string, { bytes: number; energy: number; track: string }> = {};
      const connections = (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? [];
      for (const pc of connections.slice(from)) {
        if (pc.connectionState === 'closed') continue;
        for (const stats of (await pc.getStats()).values()) {
          if (stats.type !== 'inbound-rtp' || stats.kind !== 'audio') continue;
          const member = memberOfTrack.get(stats.trackIdentifier);
          if (member) {
            out[member] = {
              bytes: stats.bytesReceived ?? 0,
              energy: stats.totalAudioEnergy ?? 0,
              track: stats.trackIdentifier,
            };
          }
        }
      }
      return out;
    },
    [PEER_CONNECTIONS, fromConnection] as const,
  );
}

/**
 * Waits until `page` receives speech from every one of `members`: bytes and energy both growing,
 * counting only connections from the `fromConnection`th on (a rejoin's, once the old ones are gone).
 */
export async function expectHearing(
  page: Page,
  members: Person[],
  timeoutMs = 20_000,
  fromConnection = 0,
): Promise<void> {
  const before = await roomAudio(page, fromConnection);
  await expect
    .poll(
      async () => {
        const now = await roomAudio(page, fromConnection);
        return members
          .filter((member) => {
            const is = now[member.id];
            // Their track changed meanwhile (they rejoined): the new one counts from zero.
            const earlier = before[member.id];
            const was = earlier && earlier.track === is?.track ? earlier : { bytes: 0, energy: 0 };
            return !is || is.bytes - was.bytes < 2000 || is.energy - was.energy <= 0.001;
          })
          .map((member) => member.displayName);
      },
      { timeout: timeoutMs, intervals: [100, 250, 500], message: 'members not heard' },
    )
    .toEqual([]);
}

/**
 * The SRTP cipher of each of the page's connected transports (Chromium's `srtpCipher`), as the
 * browser and the media server agreed it over DTLS.
 */
export function roomCiphers(page: Page): Promise<string[]> {
  return page.evaluate(async (key) => {
    const ciphers: string[] = [];
    const connections = (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? [];
    for (const pc of connections) {
      if (pc.connectionState !== 'connected') continue;
      for (const stats of (await pc.getStats()).values()) {
        if (stats.type === 'transport' && stats.srtpCipher) ciphers.push(stats.srtpCipher);
      }
    }
    return ciphers;
  }, PEER_CONNECTIONS);
}
