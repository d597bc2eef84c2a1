/** Call history (SPEC section 4 "Call"; GET /calls). */
import { CALL_ROUTES, type CallHistoryResponse } from '@voice/protocol';
import { apiRequest } from './client.ts';

/** A page of the history: at most `limit` calls, created before `before` (an ISO time). */
export interface CallHistoryQuery {
  limit?: number;
  before?: string;
}

export const callsApi = {
  /** The signed-in person's calls, newest first. */
  history: ({ limit, before }: CallHistoryQuery = {}, signal?: AbortSignal) => {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (before !== undefined) query.set('before', before);
    const search = query.toString();
    const path = search ? `${CALL_ROUTES.history}?${search}` : CALL_ROUTES.history;
    return apiRequest<CallHistoryResponse>(path, signal ? { signal } : {});
  },
};
