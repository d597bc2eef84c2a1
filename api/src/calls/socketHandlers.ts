/** The calls feature's app-socket requests: each turns a message into a call on CallService. */
import type { SocketHandlers, SocketLifecycle } from '../socket/handlers.ts';
import type { CallService } from './CallService.ts';
import {
  acceptCallSchema,
  callIdBodySchema,
  callMutedSchema,
  endCallSchema,
  iceCandidateBodySchema,
  initiateCallSchema,
  sdpBodySchema,
} from './schema.ts';

type CallRequest =
  | 'initiate-call'
  | 'accept-call'
  | 'reject-call'
  | 'end-call'
  | 'webrtc-offer'
  | 'webrtc-answer'
  | 'webrtc-ice-candidate'
  | 'call-muted';

export function callSocketHandlers(calls: CallService): SocketHandlers<CallRequest> {
  return {
    'initiate-call': {
      schema: initiateCallSchema,
      handle: (ctx, { targetUserId }) => calls.initiate(ctx, targetUserId),
    },
    'accept-call': {
      schema: acceptCallSchema,
      async handle(ctx, { callId, sdp }) {
        await calls.accept(ctx, callId, sdp);
        return { ok: true };
      },
    },
    'reject-call': {
      schema: callIdBodySchema,
      async handle(ctx, { callId }) {
        await calls.reject(ctx, callId);
        return { ok: true };
      },
    },
    'end-call': {
      schema: endCallSchema,
      async handle(ctx, { callId, reason }) {
        await calls.end(ctx, callId, reason);
        return { ok: true };
      },
    },
    'webrtc-offer': {
      schema: sdpBodySchema,
      async handle(ctx, data) {
        await calls.relay(ctx, 'webrtc-offer', data);
        return { ok: true };
      },
    },
    'webrtc-answer': {
      schema: sdpBodySchema,
      async handle(ctx, data) {
        await calls.relay(ctx, 'webrtc-answer', data);
        return { ok: true };
      },
    },
    'webrtc-ice-candidate': {
      schema: iceCandidateBodySchema,
      async handle(ctx, data) {
        await calls.relay(ctx, 'webrtc-ice-candidate', data);
        return { ok: true };
      },
    },
    'call-muted': {
      schema: callMutedSchema,
      async handle(ctx, data) {
        await calls.tellOtherParty(ctx, 'call-muted', data);
        return { ok: true };
      },
    },
  };
}

/** Ends the call of a tab that closes. */
export function callSocketLifecycle(calls: CallService): SocketLifecycle {
  return {
    connectionClosed(ctx) {
      void calls.connectionClosed(ctx);
    },
  };
}
