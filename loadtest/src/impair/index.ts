// Network impairment for a share of load-test participants (`--impair`): each in a network
// namespace of its own, loss by iptables, delay, jitter and rate by a UDP relay of the tool's own.
export {
  closeAllImpairedNetworks,
  type DirectionFigures,
  ImpairedNetwork,
  type ImpairedNetworkOptions,
  type MeasuredImpairment,
} from './ImpairedNetwork.ts';
export { cleanupStale } from './stale.ts';
export { NOT_ROOT_MESSAGE, requireRoot } from './system.ts';
