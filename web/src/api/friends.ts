/** Search, friends and friend requests (SPEC section 7, /users/*). */
import {
  FRIEND_ROUTES,
  type FriendRequestsResponse,
  type FriendsResponse,
  type OkResponse,
  type SearchResponse,
  type SendFriendRequestResponse,
  type SentFriendRequestsResponse,
} from '@voice/protocol';
import { apiRequest } from './client.ts';

const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});

export const friendsApi = {
  search: (searchTerm: string, signal?: AbortSignal) =>
    apiRequest<SearchResponse>(FRIEND_ROUTES.search, {
      method: 'POST',
      body: { searchTerm },
      ...withSignal(signal),
    }),
  /** Friends with presence; each already carries isInCall. */
  friends: (signal?: AbortSignal) =>
    apiRequest<FriendsResponse>(FRIEND_ROUTES.friendsWithCallStatus, withSignal(signal)),
  requests: (signal?: AbortSignal) =>
    apiRequest<FriendRequestsResponse>(FRIEND_ROUTES.requests, withSignal(signal)),
  /** Requests we sent that are still pending. */
  sentRequests: (signal?: AbortSignal) =>
    apiRequest<SentFriendRequestsResponse>(FRIEND_ROUTES.sentRequests, withSignal(signal)),
  sendRequest: (userId: string) =>
    apiRequest<SendFriendRequestResponse>(FRIEND_ROUTES.sendRequest, { method: 'POST', body: { userId } }),
  accept: (userId: string) =>
    apiRequest<OkResponse>(FRIEND_ROUTES.accept, { method: 'POST', body: { userId } }),
  reject: (userId: string) =>
    apiRequest<OkResponse>(FRIEND_ROUTES.reject, { method: 'POST', body: { userId } }),
  /** Withdraws our pending request to `userId`. */
  cancel: (userId: string) => apiRequest<OkResponse>(FRIEND_ROUTES.cancel(userId), { method: 'DELETE' }),
  remove: (userId: string) => apiRequest<OkResponse>(FRIEND_ROUTES.unfriend(userId), { method: 'DELETE' }),
};
