/** Whether a member's audio level shows them speaking: shared by the room's client and its view. */

/** Above this level (dBov) a member speaks: their ring lights. */
export const SPEAKING_DBOV = -60;

export function speaks(volume: number | null): boolean {
  return volume !== null && volume > SPEAKING_DBOV;
}
