import { APP_SOCKET_PATH } from '@voice/protocol';

/** The app socket's address on the page's own host, with a socket ticket: wss: under https:, ws: otherwise. */
export function appSocketUrl(location: Pick<Location, 'protocol' | 'host'>, ticket: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${APP_SOCKET_PATH}?ticket=${encodeURIComponent(ticket)}`;
}
