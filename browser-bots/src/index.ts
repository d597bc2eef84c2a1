// @voice/browser-bots: people in Debian's Chromium driven through the real app, as the e2e tests,
// the benchmarks and a load tester use them: a browser per person with a speaking fake microphone,
// accounts and friendships made through the API, rooms joined through the pages, and what each
// page hears.

export {
  type AudioGrowth,
  type AudioStats,
  audioPacketsSent,
  audioStats,
  CallBrowser,
  type CallBrowserOptions,
  type CandidateType,
  connectionCount,
  type Negotiation,
  negotiation,
  PEER_CONNECTIONS,
  selectedPaths,
  trackPeerConnections,
  waitForAudioGrowth,
} from './CallBrowser.ts';
export { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
export { apiCall, befriend, createPerson, openDashboardAs, type Person } from './people.ts';
export { expectHearing, type RoomAudio, roomAudio, roomCiphers } from './roomAudio.ts';
export { joinFromList, openRooms, roomView, type TwoInARoom, twoInARoom } from './roomPages.ts';
export {
  type NoisySpeechOptions,
  noisySpeechFile,
  SPEAKERS,
  SPEECH_FORMAT,
  type Speaker,
  silenceFile,
  speechFile,
} from './speech.ts';
