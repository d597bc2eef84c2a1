// The public API of @voice/signalling.
export {
  CLOSE_POLICY_VIOLATION,
  DEFAULT_FRAME_LIMITS,
  type FrameGuardOptions,
  type FrameLimits,
  frameProblem,
  guardProtooTransport,
} from './frameGuard.ts';
export {
  type AcceptConnection,
  type ConnectionRequest,
  ProtooEndpoint,
  type ProtooEndpointOptions,
  type RejectConnection,
  type UpgradeTarget,
} from './ProtooEndpoint.ts';
export { TokenBucket } from './TokenBucket.ts';
export { routeUpgrades } from './UpgradeRouter.ts';
