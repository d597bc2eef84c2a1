/** The bus's channels, each with the schema its messages are checked against on arrival. */
import {
  DELIVERY_CHANNEL,
  type Delivery,
  FORWARDING,
  MEDIA_ANNOUNCE,
  MEDIA_ANNOUNCE_CHANNEL,
  MEDIA_SOCKET_PATH,
  type MediaServerAnnouncement,
  ROOM_CHANGES_CHANNEL,
  ROOM_COMMANDS_CHANNEL,
  ROOM_KICKS_CHANNEL,
  ROOM_LIMITS,
  ROOM_LINKS_CHANNEL,
  ROOM_MEMBERS_CHANNEL,
  type RoomChange,
  type RoomCommand,
  type RoomKick,
  type RoomLinkMessage,
  type RoomMembers,
  SOCKET_EVICT_CHANNEL,
  type SocketEviction,
} from '@voice/protocol';
import { z } from 'zod';
import { defineChannel } from './Channel.ts';

const id = z.string().min(1).max(200);
// One bus message stays small even for someone with thousands of friends (see Notifier).
const MAX_RECIPIENTS = 1000;

export const deliveryChannel = defineChannel<Delivery>(
  DELIVERY_CHANNEL,
  z.object({
    to: z.array(id).max(MAX_RECIPIENTS),
    connections: z.array(id).max(MAX_RECIPIENTS).optional(),
    except: z.array(id).max(MAX_RECIPIENTS).optional(),
    event: z.string().min(1).max(100) as z.ZodType<Delivery['event']>,
    data: z.unknown(),
  }) as z.ZodType<Delivery>,
);

export const socketEvictionChannel = defineChannel<SocketEviction>(
  SOCKET_EVICT_CHANNEL,
  z.object({ userId: id, socketIds: z.array(id).max(MAX_RECIPIENTS) }),
);

const count = z.number().int().min(0).max(1_000_000);
export const mediaAnnounceChannel = defineChannel<MediaServerAnnouncement>(
  MEDIA_ANNOUNCE_CHANNEL,
  z.object({
    id,
    url: z
      .url({ protocol: /^wss?$/ })
      .max(2000)
      .refine((url) => new URL(url).pathname === MEDIA_SOCKET_PATH, `must end in ${MEDIA_SOCKET_PATH}`),
    load: z.object({
      workers: count,
      routers: count,
      members: count.optional(),
      consumers: count.optional(),
      cpu: z.number().min(0).max(10_000).optional(),
      full: z.literal(true).optional(),
    }),
    rooms: z
      .array(z.object({ id, peers: count, seats: count.optional() }))
      .max(MEDIA_ANNOUNCE.maxRooms)
      .optional(),
    draining: z.literal(true).optional(),
    gone: z.literal(true).optional(),
  }),
);

// A room holds at most ROOM_LIMITS.maxStageParticipants (a stage); a little slack for joins racing a leave.
const MAX_ROOM_PEERS = ROOM_LIMITS.maxStageParticipants * 2;

/** A media server says who is in one of its rooms now (empty: the room closed). */
export const roomMembersChannel = defineChannel<RoomMembers>(
  ROOM_MEMBERS_CHANNEL,
  z.object({ serverId: id, roomId: id, peers: z.array(id).max(MAX_ROOM_PEERS) }),
);

/**
 * The API tells a room's media server to close it, to remove a member (from every room when
 * they took a call), or to say its members again.
 */
export const roomCommandsChannel = defineChannel<RoomCommand>(
  ROOM_COMMANDS_CHANNEL,
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('close'), roomId: id }),
    z.object({ type: z.literal('kick'), roomId: id, peerId: id }),
    z.object({ type: z.literal('moderator'), roomId: id, peerId: id, moderator: z.boolean() }),
    z.object({ type: z.literal('inCall'), peerId: id }),
    z.object({
      type: z.literal('resync'),
      serverId: id,
      roomIds: z.array(id).min(1).max(MEDIA_ANNOUNCE.maxRooms),
    }),
  ]),
);

/** A media server says who removed whom from a room (the API keeps them out for a while). */
export const roomKicksChannel = defineChannel<RoomKick>(
  ROOM_KICKS_CHANNEL,
  z.object({ roomId: id, peerId: id, by: id }),
);

const peerInfo = z.object({
  id,
  displayName: z.string().min(1).max(200),
  avatarUrl: z.string().max(2000).nullable(),
  admin: z.boolean(),
  moderator: z.boolean(),
  muted: z.boolean(),
  deafened: z.boolean(),
  mutedBy: z.object({ id, displayName: z.string().min(1).max(200) }).nullable(),
  speaker: z.boolean(),
  handRaised: z.boolean(),
});
const port = z.number().int().min(1).max(65_535);
// An Opus producer's RTP parameters are a few hundred bytes; mediasoup checks them itself.
const rtpParameters = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 8000, 'RTP parameters too large');

/** Media servers holding parts of one room link them (a room across media servers). */
export const roomLinksChannel = defineChannel<RoomLinkMessage>(
  ROOM_LINKS_CHANNEL,
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('hello'), roomId: id, from: id }),
    z.object({
      type: z.literal('pipe'),
      roomId: id,
      from: id,
      to: id,
      pipe: z.object({
        ip: z.union([z.ipv4(), z.ipv6()]),
        port,
        srtp: z.object({ cryptoSuite: z.string().min(1).max(100), keyBase64: z.string().min(1).max(200) }),
      }),
    }),
    z.object({
      type: z.literal('members'),
      roomId: id,
      from: id,
      peers: z.array(peerInfo).max(MAX_ROOM_PEERS),
      left: z.array(id).max(MAX_ROOM_PEERS),
      all: z.literal(true).optional(),
      ask: z.literal(true).optional(),
    }),
    z.object({
      type: z.literal('voice'),
      roomId: id,
      from: id,
      to: id,
      peerId: id,
      producerId: id,
      rtpParameters,
    }),
    z.object({
      type: z.literal('moderate'),
      roomId: id,
      from: id,
      to: id,
      peerId: id,
      action: z.enum(['mute', 'unmute', 'remove']),
      by: z.object({ id, displayName: z.string().min(1).max(200), admin: z.boolean() }),
    }),
    z.object({
      type: z.literal('selection'),
      roomId: id,
      from: id,
      voices: z.array(id).max(FORWARDING.loudestMax + 1),
    }),
    z.object({ type: z.literal('actingAdmin'), roomId: id, from: id, peerId: id.nullable() }),
    z.object({ type: z.literal('voiceClosed'), roomId: id, from: id, producerId: id }),
    z.object({ type: z.literal('bye'), roomId: id, from: id }),
  ]) as z.ZodType<RoomLinkMessage>,
);

// Those who may see a private room: its admin, past members and invitees.
const MAX_ROOM_VIEWERS = 10_000;

/** An API process created, changed or deleted a room, for every process's watching tabs. */
export const roomChangesChannel = defineChannel<RoomChange>(
  ROOM_CHANGES_CHANNEL,
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('updated'), roomId: id, wasPublic: z.boolean().optional() }),
    z.object({
      type: z.literal('removed'),
      roomId: id,
      viewers: z.array(id).max(MAX_ROOM_VIEWERS).nullable(),
    }),
  ]),
);
