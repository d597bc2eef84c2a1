/**
 * SDP edits the calls need. Opus in-band FEC (recovers lost packets from the next one) and
 * DTX (sends next to nothing while you are silent) are asked for in the `a=fmtp` line of the
 * Opus payload: the SDP a tab sends tells the other tab's encoder what to do.
 */

/** Opus parameters every call asks for. */
export const OPUS_CALL_PARAMETERS: Readonly<Record<string, string>> = { useinbandfec: '1', usedtx: '1' };

/**
 * `sdp` with `parameters` set on the fmtp line of every Opus payload (one is added where the
 * payload has none). Other codecs and lines are left as they are, line endings included.
 */
export function withOpusParameters(sdp: string, parameters = OPUS_CALL_PARAMETERS): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const opus = new Set<string>();
  for (const line of lines) {
    const match = /^a=rtpmap:(\d+) opus\/48000/i.exec(line);
    if (match?.[1]) opus.add(match[1]);
  }
  if (opus.size === 0) return sdp;
  const withFmtp = new Set<string>();
  const edited = lines.map((line) => {
    const match = /^a=fmtp:(\d+) (.*)$/.exec(line);
    if (!match?.[1] || !opus.has(match[1])) return line;
    withFmtp.add(match[1]);
    return `a=fmtp:${match[1]} ${mergeParameters(match[2] ?? '', parameters)}`;
  });
  // A payload without an fmtp line gets one right after its rtpmap.
  const result: string[] = [];
  for (const line of edited) {
    result.push(line);
    const match = /^a=rtpmap:(\d+) opus\/48000/i.exec(line);
    if (match?.[1] && !withFmtp.has(match[1])) {
      result.push(`a=fmtp:${match[1]} ${mergeParameters('', parameters)}`);
    }
  }
  return result.join(eol);
}

/** `existing` (`k=v;k=v`) with `parameters` set, keeping the order of what was there. */
function mergeParameters(existing: string, parameters: Readonly<Record<string, string>>): string {
  const entries = existing
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return at === -1 ? ([part, ''] as const) : ([part.slice(0, at), part.slice(at + 1)] as const);
    });
  const merged = new Map<string, string>(entries);
  for (const [key, value] of Object.entries(parameters)) merged.set(key, value);
  return [...merged].map(([key, value]) => (value === '' ? key : `${key}=${value}`)).join(';');
}
