/** Security headers on every response, API and static alike. */
import type { Middleware } from 'koa';

// Two years: browsers then refuse plain http for the host until then (sent only behind https).
const HSTS = 'max-age=63072000';

/**
 * The Content-Security-Policy for an app served at `publicUrl`. Besides its own origin, the
 * page may connect only to its own app socket (`ws:`/`wss:` of the same host) and to the
 * `/rtc` of the media servers in `mediaOrigins` (run apart, on origins of their own), not to
 * any WebSocket anywhere, so injected script could not send data out that way.
 */
export function contentSecurityPolicy(publicUrl: string, mediaOrigins: readonly string[] = []): string {
  const url = new URL(publicUrl);
  const socketOrigin = `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`;
  const connect = [...new Set([socketOrigin, ...mediaOrigins])];
  return [
    "default-src 'self'",
    // 'wasm-unsafe-eval' lets the page compile WebAssembly (RNNoise, in the noise-suppression
    // AudioWorklet) and nothing else: eval() and inline scripts stay refused.
    "script-src 'self' 'wasm-unsafe-eval'",
    // React sets inline style attributes; no inline scripts are allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src 'self' ${connect.join(' ')}`,
    "font-src 'self' data:",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface SecurityOptions {
  publicUrl: string;
  /**
   * The origins of the media servers run apart, as their announcements give them (see
   * MediaServers.origins): the same array until the set changes. Unset with the embedded
   * media server, whose `/rtc` is on the app's own origin.
   */
  mediaOrigins?: (() => readonly string[]) | undefined;
}

export function securityHeaders({ publicUrl, mediaOrigins }: SecurityOptions): Middleware {
  let headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(publicUrl),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'microphone=(self), camera=(), geolocation=()',
  };
  // Only an app reached over https may tell browsers to insist on https; on plain http
  // (local use) the header would be ignored at best.
  if (new URL(publicUrl).protocol === 'https:') headers['Strict-Transport-Security'] = HSTS;
  // Built again only when the media servers' origins change, not per response.
  let origins: readonly string[] = [];
  let entries = Object.entries(headers);
  return async (ctx, next) => {
    const current = mediaOrigins?.() ?? origins;
    if (current !== origins) {
      origins = current;
      headers = { ...headers, 'Content-Security-Policy': contentSecurityPolicy(publicUrl, origins) };
      entries = Object.entries(headers);
    }
    // Straight onto the response: Koa's ctx.set() copies and normalizes them on every request.
    for (const [name, value] of entries) ctx.res.setHeader(name, value);
    await next();
  };
}
