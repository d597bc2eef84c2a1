/**
 * A one-to-one call as every API process sees it: who the two parties are and which tab
 * of each it is bound to (the caller's tab that started it, the callee's tab that answered).
 */

export type CallStatus = 'ringing' | 'connected';

export interface Call {
  id: string;
  callerId: string;
  calleeId: string;
  /** The caller's tab: it alone gets the call's events and may relay. */
  callerConnectionId: string;
  /** The callee's tab that answered; null while ringing. */
  calleeConnectionId: string | null;
  /** The API processes holding the bound tabs, so a call whose process died can be ended. */
  callerNodeId: string;
  calleeNodeId: string | null;
  status: CallStatus;
  /** Epoch milliseconds. */
  createdAt: number;
  answeredAt: number | null;
}

export type CallRole = 'caller' | 'callee';

/** The role of `userId` in `call`, or null for a third person. */
export function roleOf(call: Call, userId: string): CallRole | null {
  if (userId === call.callerId) return 'caller';
  if (userId === call.calleeId) return 'callee';
  return null;
}

/** The role of the tab `connectionId` of `userId` in `call`, or null when the tab is not bound to it. */
export function boundRole(call: Call, userId: string, connectionId: string): CallRole | null {
  if (userId === call.callerId && connectionId === call.callerConnectionId) return 'caller';
  if (userId === call.calleeId && connectionId === call.calleeConnectionId) return 'callee';
  return null;
}

/** The other party of `role`: their user id and bound tab (null: the callee has not answered). */
export function otherParty(call: Call, role: CallRole): { userId: string; connectionId: string | null } {
  return role === 'caller'
    ? { userId: call.calleeId, connectionId: call.calleeConnectionId }
    : { userId: call.callerId, connectionId: call.callerConnectionId };
}
