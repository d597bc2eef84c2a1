/** What an avatar picker can hold, and the client-side checks of a photo (SPEC section 5, "Images"). */
import { AVATAR_UPLOAD, type StockAvatarId, stockAvatarIdOf, stockAvatarUrl } from '@voice/protocol';

/** The avatar picked: a stock one, a new photo, or the uploaded photo the profile already has. */
export type AvatarChoice =
  | { kind: 'stock'; id: StockAvatarId }
  | { kind: 'photo'; file: File }
  | { kind: 'current'; url: string };

/** Why a file cannot be an avatar. */
export type ImageProblem = 'type' | 'empty' | 'size';

/** The file size limit in megabytes, for messages. */
export const MAX_IMAGE_MB = AVATAR_UPLOAD.maxBytes / (1024 * 1024);

export const IMAGE_PROBLEM_KEYS: Record<ImageProblem, string> = {
  type: 'avatars.errors.type',
  empty: 'errors.INVALID_IMAGE',
  size: 'avatars.errors.tooLarge',
};

const TYPES: readonly string[] = AVATAR_UPLOAD.accept.split(',');
// Some systems report no type at all; the name is the only hint then (the server checks the content).
const EXTENSIONS = /\.(jpe?g|png|gif|webp)$/i;

/** The problem with `file` as an avatar, or null when it may be uploaded. */
export function imageProblem(file: Pick<File, 'name' | 'type' | 'size'>): ImageProblem | null {
  const typeOk = file.type ? TYPES.includes(file.type) : EXTENSIONS.test(file.name);
  if (!typeOk) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > AVATAR_UPLOAD.maxBytes) return 'size';
  return null;
}

/** The choice that represents a profile's current avatar_url. */
export function choiceOf(avatarUrl: string | null): AvatarChoice | null {
  if (!avatarUrl) return null;
  const stock = stockAvatarIdOf(avatarUrl);
  return stock ? { kind: 'stock', id: stock } : { kind: 'current', url: avatarUrl };
}

/** True when two choices pick the same avatar. */
export function sameChoice(a: AvatarChoice | null, b: AvatarChoice | null): boolean {
  if (a === null || b === null) return a === b;
  switch (a.kind) {
    case 'stock':
      return b.kind === 'stock' && a.id === b.id;
    case 'photo':
      return b.kind === 'photo' && a.file === b.file;
    case 'current':
      return b.kind === 'current' && a.url === b.url;
  }
}

/** The image URL to show for a choice; a new photo needs its object URL. */
export function choiceUrl(choice: AvatarChoice | null, photoUrl: string | null): string | null {
  switch (choice?.kind) {
    case 'stock':
      return stockAvatarUrl(choice.id);
    case 'photo':
      return photoUrl;
    case 'current':
      return choice.url;
    default:
      return null;
  }
}
