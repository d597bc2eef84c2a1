// The load tester's participants: browsers carrying pages in rooms and calls, sampled every second.
export { startCallPair } from './CallPair.ts';
export { defaultPerBrowser, Generator, type GeneratorOptions, type Seat, type Voice } from './Generator.ts';
export {
  GENERATOR_BUSY_SHARE,
  GeneratorMonitor,
  type GeneratorMonitorOptions,
  treePssMb,
} from './GeneratorMonitor.ts';
export { type LaunchBrowser, LOADTEST_ARGS, launchChromium, participantLaunchOptions } from './launch.ts';
export { type Account, AUDIO_ENERGY_THRESHOLD, Participant } from './Participant.ts';
export { type PageCounters, readCounters } from './pageStats.ts';
export { JOIN_TIMEOUT_MS, joinRoom, type RoomJoin } from './RoomParticipant.ts';
export {
  type CallRunOptions,
  type ProgressSnapshot,
  type RoomRunOptions,
  type RunOptions,
  type RunOutcome,
  runCallPairs,
  runRoomParticipants,
} from './run.ts';
