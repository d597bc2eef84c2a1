/** The profile endpoints (SPEC section 7, /users/profile, /users/avatar, /users/{id}). */
import {
  AVATAR_UPLOAD,
  PROFILE_ROUTES,
  type UpdateProfileRequest,
  type UploadAvatarResponse,
  type UserResponse,
} from '@voice/protocol';
import { apiRequest } from './client.ts';

export const profileApi = {
  /** Changes the own profile; answers the updated profile. */
  update: (body: UpdateProfileRequest) =>
    apiRequest<UserResponse>(PROFILE_ROUTES.profile, { method: 'PUT', body }),
  /** Uploads a photo as the own avatar; the server crops it to a square and answers its URL. */
  uploadAvatar: (file: File) => {
    const form = new FormData();
    form.append(AVATAR_UPLOAD.field, file, file.name);
    return apiRequest<UploadAvatarResponse>(PROFILE_ROUTES.avatar, { method: 'POST', body: form });
  },
  /** Another user's public profile. */
  get: (id: string, signal?: AbortSignal) =>
    apiRequest<UserResponse>(PROFILE_ROUTES.user(id), signal ? { signal } : {}),
};
