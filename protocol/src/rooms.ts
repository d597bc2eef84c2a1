/**
 * Group voice rooms (spec sections 2, 3, 5, 7, 8): the REST shapes, the room token the API
 * gives a member for the media server, the bus messages between media servers and the API,
 * and the media server's protoo methods at MEDIA_SOCKET_PATH (named as in mediasoup-demo).
 */
import { paramRoute } from './routes.ts';

// ---------------------------------------------------------------------------------------
// REST (under /api)

export const ROOM_ROUTES = {
  /** POST CreateRoomBody → 201 RoomResponse; GET ?query= → RoomsResponse. */
  rooms: '/rooms',
  /** GET → RoomInvitationsResponse (must be matched before `room`). */
  invitations: '/rooms/invitations',
  /** GET → RoomResponse; PATCH UpdateRoomBody (admin) → RoomResponse; DELETE (admin) → 204. */
  room: paramRoute('/rooms/:id'),
  /** POST JoinRoomBody → JoinRoomResponse. */
  join: paramRoute('/rooms/:id/join'),
  /** POST InviteBody → 201 InviteResponse. */
  invite: paramRoute('/rooms/:id/invitations'),
  /** POST → JoinRoomResponse (the invitation is used up). */
  acceptInvitation: paramRoute('/rooms/invitations/:id/accept'),
  /** POST → 204. */
  declineInvitation: paramRoute('/rooms/invitations/:id/decline'),
  /**
   * PUT (admin) names the person a moderator of the room, DELETE (admin) unnames them; both
   * → RoomResponse. Moderators may mute, unmute and remove members in the room.
   */
  moderator: paramRoute('/rooms/:id/moderators/:userId'),
} as const;

export const ROOM_TYPES = ['public', 'private'] as const;
export type RoomType = (typeof ROOM_TYPES)[number];

/** Limits of rooms (the name's 100 is the spec's). */
export const ROOM_LIMITS = {
  /** Characters as a person sees them (grapheme clusters, see visibleLength). */
  nameMax: 100,
  /**
   * Code points a name may be stored with: 100 of the longest common clusters (a family emoji
   * is 7) fit; a name piling dozens of combining marks on each letter does not.
   */
  nameMaxCodePoints: 1000,
  descriptionMax: 500,
  passwordMin: 4,
  passwordMax: 128,
  /**
   * Default and largest `maxParticipants`. A room lives on mediasoup workers, whose RTC ports
   * must hold them too (RTC_LIMITS.portsPerMember each; see AnnouncedRoom.seats).
   */
  defaultParticipants: 25,
  maxParticipants: 1000,
  /**
   * Largest `maxParticipants` of a stage room: its audience only listens (one receiving
   * transport each), and a room that fills a worker goes on on the others (a room across workers).
   */
  maxStageParticipants: 5000,
  minParticipants: 2,
  /** Largest `userIds` of one invitation request. */
  inviteMax: 50,
  /** Longest `query` of GET /rooms. */
  queryMax: 100,
  /** Longest media server URL a join may report as unreachable (announced URLs are no longer). */
  mediaUrlMax: 2000,
  /** How long someone removed from a room stays out of it, unless an admin or moderator invites them. */
  kickBanSeconds: 300,
  /** Most moderators a room may have. */
  moderatorsMax: 20,
} as const;

/**
 * Loudest-K forwarding (media-server/src/LoudestK.ts): each listener receives at most `loudest`
 * voices at once, the loudest, as jitsi-videobridge's last-N does. A room of at most K+1 members
 * hears everyone.
 */
export const FORWARDING = {
  /** A room's `loudest`: default and bounds. */
  loudestDefault: 3,
  loudestMin: 1,
  loudestMax: 8,
  /** How long a voice must stay louder than a forwarded one before it takes its place (ms). */
  switchAfterMs: 300,
  /** A listener holds consumers (paused when not forwarded) of at most this many × K recent voices. */
  heldPerForwarded: 2,
} as const;

/** A public profile as rooms show people. */
export interface RoomPerson {
  id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

export interface Room {
  id: string;
  name: string;
  description: string | null;
  type: RoomType;
  /** The password itself is stored hashed and never returned. */
  hasPassword: boolean;
  /** A locked room takes nobody new. */
  locked: boolean;
  admin: RoomPerson;
  /** People in the room now; null when it cannot be known now (Redis does not answer). */
  memberCount: number | null;
  maxParticipants: number;
  /** Voices each member hears at once, the loudest (FORWARDING). */
  loudest: number;
  /**
   * A stage (like a Discord Stage): only speakers talk, the audience listens and may raise a hand.
   * Chosen when the room is made.
   */
  stage: boolean;
  participants: RoomPerson[];
  /** User ids of the room's moderators, named by the admin. */
  moderators: string[];
  created_at: string;
}

export interface CreateRoomBody {
  name: string;
  description?: string;
  type: RoomType;
  password?: string;
  maxParticipants?: number;
  loudest?: number;
  /** A stage room (see Room.stage); fixed once the room exists. */
  stage?: boolean;
}

/** Every field optional; `password: null` removes the password. */
export interface UpdateRoomBody {
  name?: string;
  description?: string | null;
  type?: RoomType;
  password?: string | null;
  locked?: boolean;
  maxParticipants?: number;
  loudest?: number;
}

export interface RoomResponse {
  room: Room;
}

export interface RoomsResponse {
  rooms: Room[];
}

export interface JoinRoomBody {
  password?: string;
  /**
   * The `mediaUrl` this browser could not open on its last try: the API then asks that media
   * server itself and, if it is dead, moves the room to a live one at once.
   */
  unreachable?: string;
}

export interface JoinRoomResponse {
  /** For the media server: see RoomTokenClaims. */
  roomToken: string;
  /** The `/rtc` URL (ws: or wss:) of the media server hosting the room. */
  mediaUrl: string;
  room: Room;
}

export interface InviteBody {
  userIds: string[];
}

export interface InviteResponse {
  invitations: RoomInvitation[];
}

/** Spec section 3 "Room invitation". */
export interface RoomInvitation {
  id: string;
  room_id: string;
  room_name: string;
  inviter_username: string;
  inviter_display_name: string | null;
  created_at: string;
}

export interface RoomInvitationsResponse {
  invitations: RoomInvitation[];
}

// ---------------------------------------------------------------------------------------
// The room token: the API's word to the media server

/**
 * A room token is an HS256 JWT with these claims, signed with the media secret (MEDIA_SECRET,
 * or in the embedded setup a key derived from the API's JWT secret), valid ROOM_TOKEN.ttlSeconds
 * and accepted once (its `jti`) by the media server, which trusts nothing else.
 */
export const ROOM_TOKEN = { audience: 'media', issuer: 'voice-api', ttlSeconds: 60 } as const;

/** What a member may do in the room. */
export interface RoomPermissions {
  /** The room's admin: may mute others, kick, lock, close. */
  admin: boolean;
  /** Named by the admin: may mute, unmute and kick members (not the admin, not other moderators). */
  moderator: boolean;
}

export interface RoomTokenClaims {
  /** The user id; also the peer id on the media server. */
  sub: string;
  roomId: string;
  /** Shown to the other members. */
  displayName: string;
  avatarUrl: string | null;
  permissions: RoomPermissions;
  /** The room's `loudest` when the token was signed: the media server forwards that many voices. */
  loudest: number;
  /** The room is a stage: only its speakers may produce (the admin and moderators start as speakers). */
  stage: boolean;
  /** Once only. */
  jti: string;
  aud: typeof ROOM_TOKEN.audience;
  iss: typeof ROOM_TOKEN.issuer;
  iat: number;
  exp: number;
}

// ---------------------------------------------------------------------------------------
// The bus between media servers and API processes

/** A media server says who is in its rooms: after every join and leave, and when a room closes. */
export const ROOM_MEMBERS_CHANNEL = 'room-members';

export interface RoomMembers {
  /** The media server's id (its announcement's). */
  serverId: string;
  roomId: string;
  /** User ids in the room now; empty when the room closed. */
  peers: string[];
}

/** An API process created, changed or deleted a room: every process tells its watching tabs. */
export const ROOM_CHANGES_CHANNEL = 'room-changes';

export type RoomChange =
  /**
   * Created or changed: watchers who may see the room get `room-updated`; with `wasPublic`
   * (it just became private) the others get `room-removed`.
   */
  | { type: 'updated'; roomId: string; wasPublic?: boolean }
  /** Deleted: `viewers` are those who could see it, null for a public room (everyone). */
  | { type: 'removed'; roomId: string; viewers: string[] | null };

/** Where a friend is, as their friends see it: the room's name only when they may see the room. */
export interface UserRoom {
  id: string;
  /** null: a private room this friend may not see ("in a private room"). */
  name: string | null;
}

/** The API tells the media server hosting a room what to do with it. */
export const ROOM_COMMANDS_CHANNEL = 'room-commands';

export type RoomCommand =
  /** The room was deleted: every member gets `roomClosed` and is disconnected. */
  | { type: 'close'; roomId: string }
  /** Someone lost access (removed by the admin over REST, or their account went). */
  | { type: 'kick'; roomId: string; peerId: string }
  /** The admin named (or unnamed) `peerId` a moderator: the media server tells the room at once. */
  | { type: 'moderator'; roomId: string; peerId: string; moderator: boolean }
  /**
   * One voice at a time: person `peerId` is in a 1:1 call now, so every media server removes
   * them from whichever of its rooms they are in (they get `inCall`, the others `peersChanged`).
   */
  | { type: 'inCall'; peerId: string }
  /**
   * The members the API stored for these rooms differ from what media server `serverId`
   * announces (Redis restarted empty, or a message was lost): it publishes their RoomMembers again.
   */
  | { type: 'resync'; serverId: string; roomIds: string[] };

/**
 * A media server says an admin or moderator removed someone from a room: the API keeps them
 * out of it for ROOM_LIMITS.kickBanSeconds, unless an admin or moderator invites them again.
 */
export const ROOM_KICKS_CHANNEL = 'room-kicks';

export interface RoomKick {
  roomId: string;
  /** Who was removed. */
  peerId: string;
  /** Who removed them. */
  by: string;
}

/**
 * A room across media servers: each media server holding a part of a room links it to the
 * others' parts over this channel. It pipes its members' voices to them (a mediasoup
 * PipeTransport per pair of parts, SRTP between hosts) and tells them who its members are, so
 * that a member on one part hears and sees the members on every other.
 */
export const ROOM_LINKS_CHANNEL = 'room-links';

/** What an admin or moderator does to a member: server-mute, let speak again, remove. */
export type RoomModeration = 'mute' | 'unmute' | 'remove';

/** The addresses of a part's PipeTransport, for the other part to connect its own to. */
export interface RoomLinkPipe {
  ip: string;
  port: number;
  srtp: { cryptoSuite: string; keyBase64: string };
}

export type RoomLinkMessage =
  /** Media server `from` holds a part of `roomId` now: parts of it elsewhere link to it. */
  | { type: 'hello'; roomId: string; from: string }
  /** `from`'s PipeTransport toward `to`'s part: `to` connects its own to it (and says where that is). */
  | { type: 'pipe'; roomId: string; from: string; to: string; pipe: RoomLinkPipe }
  /**
   * Members of `from`'s part that came or changed, and who left; `all`: every member there now;
   * `ask`: said again after a bus outage, and the parts linked with `from` say all of theirs back
   * (what they said meanwhile may not have reached it either).
   */
  | {
      type: 'members';
      roomId: string;
      from: string;
      peers: RtcPeerInfo[];
      left: string[];
      all?: true;
      ask?: true;
    }
  /** `from` sends `peerId`'s voice to `to` through their pipe: `to` makes it a producer with these parameters. */
  | {
      type: 'voice';
      roomId: string;
      from: string;
      to: string;
      peerId: string;
      producerId: string;
      rtpParameters: Record<string, unknown>;
    }
  /**
   * An admin or moderator (`by`) on `from`'s part server-mutes, lets speak again, or removes
   * `peerId`, a member of `to`'s part, which checks the same rules as for its own.
   */
  | {
      type: 'moderate';
      roomId: string;
      from: string;
      to: string;
      peerId: string;
      action: RoomModeration;
      by: { id: string; displayName: string; admin: boolean };
    }
  /**
   * The voices the room's leading part (the linked media server with the lowest id) chose to
   * forward, in their places: the other parts forward the same (loudest-K once per room).
   */
  | { type: 'selection'; roomId: string; from: string; voices: string[] }
  /** Who the room's leading part says is acting admin (null: the admin is in, or nobody is). */
  | { type: 'actingAdmin'; roomId: string; from: string; peerId: string | null }
  /** A voice `from` sent is gone (its member muted for good, left, or moved to the audience). */
  | { type: 'voiceClosed'; roomId: string; from: string; producerId: string }
  /** `from`'s part of `roomId` closed: its members left. */
  | { type: 'bye'; roomId: string; from: string };

// ---------------------------------------------------------------------------------------
// The media server's protoo methods (`/rtc?roomId=…&peerId=…&token=…`), after mediasoup-demo

export interface RtcRequests {
  getRouterRtpCapabilities: { data: Record<string, never>; reply: unknown };
  /**
   * Without `rtpCapabilities` the member only sends (a streaming bot, mediasoup-demo's
   * `consume=false`): it is never given a consumer.
   */
  join: {
    data: { displayName: string; device: unknown; rtpCapabilities?: unknown };
    /** The first RTC_LIMITS.peersPage members; the rest with `getPeers` from `next`. */
    reply: RtcJoinReply;
  };
  /** The members from `from` on (a `next` of a reply), one page. */
  getPeers: { data: { from: number }; reply: RtcPeersPage };
  createWebRtcTransport: {
    data: { producing: boolean; consuming: boolean; forceTcp?: boolean };
    reply: { id: string; iceParameters: unknown; iceCandidates: unknown; dtlsParameters: unknown };
  };
  connectWebRtcTransport: {
    data: { transportId: string; dtlsParameters: unknown };
    reply: Record<string, never>;
  };
  restartIce: { data: { transportId: string }; reply: unknown };
  produce: {
    data: { transportId: string; kind: 'audio'; rtpParameters: unknown; appData?: unknown };
    reply: { id: string };
  };
  closeProducer: { data: { producerId: string }; reply: Record<string, never> };
  pauseProducer: { data: { producerId: string }; reply: Record<string, never> };
  resumeProducer: { data: { producerId: string }; reply: Record<string, never> };
  pauseConsumer: { data: { consumerId: string }; reply: Record<string, never> };
  /** You hear nobody (your consumers are paused too): the others see it (`peerDeafened`). */
  setDeafened: { data: { deafened: boolean }; reply: Record<string, never> };
  resumeConsumer: { data: { consumerId: string }; reply: Record<string, never> };
  /**
   * Admin or moderator: server-mutes another member. Their voice is paused, and their own
   * `resumeProducer` is refused (403, RTC_REFUSALS.mutedByModerator) until `unmutePeer`.
   * A moderator may not mute the admin or another moderator.
   */
  mutePeer: { data: { peerId: string }; reply: Record<string, never> };
  /** Admin or moderator: lifts a server mute; the member stays muted until they unmute themselves. */
  unmutePeer: { data: { peerId: string }; reply: Record<string, never> };
  /** Admin or moderator: removes a member, who gets `kicked` (and is kept out for a while, RoomKick). */
  kickPeer: { data: { peerId: string }; reply: Record<string, never> };
  /**
   * Stage rooms: an audience member raises (or lowers) their hand to ask to speak
   * (RTC_LIMITS.handRaisesPerSecond). A speaker has nothing to ask (409).
   */
  raiseHand: { data: { raised: boolean }; reply: Record<string, never> };
  /**
   * Stage rooms, admin or moderator: lets a member who raised their hand speak (or themselves,
   * hand or not). The member gets `stage` and may produce from then on.
   */
  inviteToSpeak: { data: { peerId: string }; reply: Record<string, never> };
  /**
   * Stage rooms: an admin or moderator moves a speaker back to the audience, or a speaker steps
   * down themselves. Their voice is closed on the server and they get `stage`.
   */
  moveToAudience: { data: { peerId: string }; reply: Record<string, never> };
  leave: { data: Record<string, never>; reply: Record<string, never> };
  /**
   * mediasoup's stats of one of the member's own objects (RTC_LIMITS.statsPerSecond). A
   * consumer's report is its own entry only: the stream it receives is another member's.
   */
  getTransportStats: { data: { transportId: string }; reply: RtcStats };
  getProducerStats: { data: { producerId: string }; reply: RtcStats };
  getConsumerStats: { data: { consumerId: string }; reply: RtcStats };
}

/** A value in a stats report: a number or a string, or a record of them (a tuple, bitrates by layer). */
export type RtcStatValue = string | number | boolean | { [key: string]: RtcStatValue };

/** mediasoup's stats report of a transport, producer or consumer: one record per stream or transport. */
export type RtcStats = Array<Record<string, RtcStatValue>>;

/** Who server-muted a member (they may have left since: the name is kept). */
export interface RtcMutedBy {
  id: string;
  displayName: string;
}

/** One page of a room's members, in the order they came; `next` is where the next page starts. */
export interface RtcPeersPage {
  peers: RtcPeerInfo[];
  next: number | null;
}

/** The `join` reply: the first page of members, and the member as the others see them. */
export interface RtcJoinReply extends RtcPeersPage {
  /** Whether this media server treats the room as a stage (it follows the room token). */
  stage: boolean;
  you: RtcPeerInfo;
}

/** What a member of a stage room may do now (`stage` notification). */
export interface RtcStageRole {
  /** May produce. Always true outside a stage room. */
  speaker: boolean;
  handRaised: boolean;
}

/** A member as the others see them. */
export interface RtcPeerInfo {
  id: string;
  displayName: string;
  avatarUrl: string | null;
  admin: boolean;
  moderator: boolean;
  muted: boolean;
  /** They hear nobody (`setDeafened`). */
  deafened: boolean;
  /** Set while an admin or moderator has them server-muted (see `mutePeer`). */
  mutedBy: RtcMutedBy | null;
  /** May talk: everyone outside a stage room; on a stage, its speakers. */
  speaker: boolean;
  /** On a stage: asks to speak (`raiseHand`). */
  handRaised: boolean;
}

/**
 * Why the media server refused a request, at the start of the refusal's reason (protoo carries
 * a numeric code and a reason text): `MUTED_BY_MODERATOR: …` for a server-muted member's resume.
 */
export const RTC_REFUSALS = {
  mutedByModerator: 'MUTED_BY_MODERATOR',
  /** A `produce` on a stage from someone in the audience. */
  notASpeaker: 'NOT_A_SPEAKER',
} as const;

/** Above this level (dBov) a member speaks: their ring lights, and `audioLevels` tells of it. */
export const SPEAKING_DBOV = -60;

/** What the server asks of a member: take this consumer (the server resumes it on the answer). */
export interface RtcServerRequests {
  newConsumer: {
    peerId: string;
    producerId: string;
    id: string;
    kind: 'audio';
    rtpParameters: unknown;
    type: string;
    appData: unknown;
    producerPaused: boolean;
    /**
     * Consumers the server closed to make room for this one (the least recently heard voices
     * past the bound a listener holds): drop them first, as on `consumerClosed`. One message for
     * a change of voices, not three.
     */
    closed?: string[];
    /** Who speaks among what you receive now, when that changed with this voice (as `audioLevels`). */
    levels?: RtcNotifications['audioLevels']['levels'];
  };
}

export interface RtcNotifications {
  /**
   * Members who came or changed (their first voice) and who left since the last one, apply
   * `left` first. At most RTC_LIMITS.membershipPerSecond a second, so that a filling room does
   * not send everyone a message per arrival.
   */
  peersChanged: { peers: RtcPeerInfo[]; left: string[] };
  consumerClosed: { consumerId: string };
  consumerPaused: { consumerId: string };
  consumerResumed: { consumerId: string };
  /** The loudest member, or null when nobody speaks. */
  activeSpeaker: { peerId: string | null };
  /**
   * Who speaks (above SPEAKING_DBOV) among the voices you receive, and you, loudest first with
   * their volume in dBov (-127..0) at that moment: when that changed, at most 4 times a second
   * (or with the `newConsumer` that changed it).
   */
  audioLevels: { levels: { peerId: string; volume: number }[] };
  /** Sent to everyone, the member themself too; `mutedBy` set while server-muted. */
  peerMuted: { peerId: string; muted: boolean; mutedBy: RtcMutedBy | null };
  peerDeafened: { peerId: string; deafened: boolean };
  /** The admin named or unnamed a moderator (to everyone, the member themself too). */
  peerRole: { peerId: string; moderator: boolean };
  /**
   * Your own place on a stage changed (invited to speak, moved to the audience, your hand): the
   * others hear of it with the next `peersChanged`. Moved to the audience, your voice is closed.
   */
  stage: RtcStageRole;
  /**
   * While the admin is not in the room and others are: the longest-present moderator, else the
   * longest-present member, shown as acting admin; null once the admin is back. Sent on change,
   * and to each member as they join.
   */
  actingAdmin: { peerId: string | null };
  kicked: Record<string, never>;
  /** You took a 1:1 call (in this tab or another): one voice at a time, so you leave the room. */
  inCall: Record<string, never>;
  roomClosed: Record<string, never>;
  /**
   * The room's media worker failed: the server closes this connection right after, and the
   * member joins again with a fresh room token (the room is rebuilt on a healthy worker).
   */
  reconnect: Record<string, never>;
}

/** Per-peer caps on the media server. */
export const RTC_LIMITS = {
  /** maxIncomingBitrate of a member's sending transport (Opus voice needs ~40 kbit/s). */
  maxIncomingBitrate: 128_000,
  /** Requests a member may send per second, and the burst. */
  requestsPerSecond: 20,
  requestBurst: 40,
  /**
   * Of those, stats requests a member may send per second, and the burst: each one asks the
   * mediasoup worker, which forwards everyone's audio.
   */
  statsPerSecond: 4,
  statsBurst: 10,
  /** Transports a member may hold on the media server: one to send, one to receive. */
  transportsPerPeer: 2,
  /** Ports of its worker's RTC range a member takes: one UDP port for each transport. */
  portsPerMember: 2,
  /** How often audio levels are sampled (ms). */
  audioLevelIntervalMs: 250,
  /** Members in the join reply and in each `getPeers` page. */
  peersPage: 500,
  /** `peersChanged` notifications a member gets a second at most. */
  membershipPerSecond: 2,
  /** `raiseHand` requests a member may send a second, and the burst (a hand waved up and down). */
  handRaisesPerSecond: 1,
  handRaiseBurst: 4,
} as const;
