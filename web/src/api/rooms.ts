/** Group rooms (ROOM_ROUTES under /api): list, create, change, delete, join, moderators, invitations. */
import {
  type CreateRoomBody,
  type InviteResponse,
  type JoinRoomBody,
  type JoinRoomResponse,
  ROOM_ROUTES,
  type RoomInvitationsResponse,
  type RoomResponse,
  type RoomsResponse,
  type UpdateRoomBody,
} from '@voice/protocol';
import { apiRequest } from './client.ts';

const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});

export const roomsApi = {
  /** Public rooms and the private ones you may see; `query` filters by name. */
  list: (query = '', signal?: AbortSignal) =>
    apiRequest<RoomsResponse>(
      query ? `${ROOM_ROUTES.rooms}?${new URLSearchParams({ query })}` : ROOM_ROUTES.rooms,
      withSignal(signal),
    ),
  create: (body: CreateRoomBody) => apiRequest<RoomResponse>(ROOM_ROUTES.rooms, { method: 'POST', body }),
  get: (roomId: string, signal?: AbortSignal) =>
    apiRequest<RoomResponse>(ROOM_ROUTES.room(roomId), withSignal(signal)),
  update: (roomId: string, body: UpdateRoomBody) =>
    apiRequest<RoomResponse>(ROOM_ROUTES.room(roomId), { method: 'PATCH', body }),
  remove: (roomId: string) => apiRequest<void>(ROOM_ROUTES.room(roomId), { method: 'DELETE' }),
  /**
   * A room token for the media server, its URL, and the room. `unreachable`: the media server
   * URL the last try could not open, for the API to check (see JoinRoomBody).
   */
  join: (roomId: string, password?: string, unreachable?: string) =>
    apiRequest<JoinRoomResponse>(ROOM_ROUTES.join(roomId), {
      method: 'POST',
      body: {
        ...(password === undefined ? {} : { password }),
        ...(unreachable === undefined ? {} : { unreachable }),
      } satisfies JoinRoomBody,
    }),
  /** The admin names `userId` a moderator of the room (`moderator`), or unnames them. */
  setModerator: (roomId: string, userId: string, moderator: boolean) =>
    apiRequest<RoomResponse>(ROOM_ROUTES.moderator(roomId, userId), { method: moderator ? 'PUT' : 'DELETE' }),
  invite: (roomId: string, userIds: string[]) =>
    apiRequest<InviteResponse>(ROOM_ROUTES.invite(roomId), { method: 'POST', body: { userIds } }),
  invitations: (signal?: AbortSignal) =>
    apiRequest<RoomInvitationsResponse>(ROOM_ROUTES.invitations, withSignal(signal)),
  acceptInvitation: (invitationId: string) =>
    apiRequest<JoinRoomResponse>(ROOM_ROUTES.acceptInvitation(invitationId), { method: 'POST' }),
  declineInvitation: (invitationId: string) =>
    apiRequest<void>(ROOM_ROUTES.declineInvitation(invitationId), { method: 'POST' }),
};
