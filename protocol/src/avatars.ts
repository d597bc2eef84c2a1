/**
 * Avatars: the stock set (SVG files in web/public/avatars/stock, served with the web
 * build) and the rules for uploaded photos (SPEC.md section 5, "Images").
 */
import { LIMITS } from './constants.ts';

/** One stock avatar: `id` names the file and the locale key `avatars.<id>`; `name` is the English alt text. */
export interface StockAvatar {
  id: string;
  name: string;
}

export const STOCK_AVATARS = [
  { id: 'fox', name: 'Fox' },
  { id: 'cat', name: 'Cat' },
  { id: 'bear', name: 'Bear' },
  { id: 'panda', name: 'Panda' },
  { id: 'frog', name: 'Frog' },
  { id: 'owl', name: 'Owl' },
  { id: 'rabbit', name: 'Rabbit' },
  { id: 'penguin', name: 'Penguin' },
  { id: 'koala', name: 'Koala' },
  { id: 'lion', name: 'Lion' },
  { id: 'chick', name: 'Chick' },
  { id: 'whale', name: 'Whale' },
] as const satisfies readonly StockAvatar[];

export type StockAvatarId = (typeof STOCK_AVATARS)[number]['id'];

/** Where stock avatars are served (static files of the web build). */
export const STOCK_AVATAR_PATH = '/avatars/stock';
/** Where uploaded avatars are served: `<path>/<sha256 of the file>.webp`, cached forever. */
export const UPLOADED_AVATAR_PATH = '/avatars/u';

const STOCK_IDS: ReadonlySet<string> = new Set(STOCK_AVATARS.map((a) => a.id));

export function isStockAvatarId(id: unknown): id is StockAvatarId {
  return typeof id === 'string' && STOCK_IDS.has(id);
}

/** The avatar_url a user gets when choosing stock avatar `id`. */
export function stockAvatarUrl(id: StockAvatarId): string {
  return `${STOCK_AVATAR_PATH}/${id}.svg`;
}

/** The stock avatar an avatar_url points at, or null (none, or an uploaded photo). */
export function stockAvatarIdOf(avatarUrl: string | null): StockAvatarId | null {
  const match = avatarUrl?.match(/^\/avatars\/stock\/([a-z]+)\.svg$/);
  return match && isStockAvatarId(match[1]) ? match[1] : null;
}

/** An uploaded avatar's URL: a random name per upload, so a new photo gets a new URL. */
export const UPLOADED_AVATAR_URL_PATTERN = /^\/avatars\/u\/[0-9a-f]{64}\.webp$/;

/** Rules for POST /users/avatar. */
export const AVATAR_UPLOAD = {
  /** The multipart field carrying the file. */
  field: 'avatar',
  /** Formats accepted, judged by the file's content rather than its name or declared type. */
  formats: ['jpeg', 'png', 'gif', 'webp'],
  /** For `<input type="file" accept>`. */
  accept: 'image/jpeg,image/png,image/gif,image/webp',
  maxBytes: LIMITS.imageMaxBytes,
  /**
   * Largest declared width × height; bigger images are refused (413 IMAGE_TOO_LARGE)
   * from the header alone, before any decoding.
   */
  maxPixels: 25_000_000,
  /** Uploads are cover-cropped to this square, in pixels. */
  size: LIMITS.imageSize,
} as const;
