// @voice/api/testing: the test tools that run apart from the API's own code (coturn, a public peer,
// relay checks, an app-socket client), for e2e and the benchmarks. The in-process servers
// (TestServer, TwoNodes, ChildApi) stay for api's own tests, imported by path.

export { Coturn, type CoturnOptions } from './Coturn.ts';
export { PublicPeer } from './PublicPeer.ts';
export {
  type Answer,
  allocation,
  askPermissions,
  canonical,
  type DeniedRange,
  deniedRanges,
  echo,
  edges,
  type Family,
  neighbours,
  REFUSED,
  type Refusal,
  uclient,
} from './relayPeers.ts';
export { type Received, SocketClient } from './SocketClient.ts';
export { appSocketUrl, socketTicket, ticketedSocketUrl } from './socketTicket.ts';
export { type Address, TurnClient, TurnError } from './TurnClient.ts';
