/**
 * Group rooms on the API's side (spec sections 3 and 6, issue 10): who may see, change and
 * enter which room, and the room token and media server a member goes on to. The media
 * server does the rest; it tells who is in each room over the bus (RoomMembership).
 *
 * The rooms live in the database, who is in them in Redis. While Redis does not answer, rooms
 * are still listed, shown, created, changed and deleted, with their members unknown
 * (`memberCount: null`); a join is refused with ROOMS_UNAVAILABLE (503), since neither the
 * capacity nor the room's server can be known.
 */
import { type Bus, RedisUnavailableError, roomChangesChannel, roomCommandsChannel } from '@voice/bus';
import {
  type CreateRoomBody,
  type JoinRoomResponse,
  ROOM_LIMITS,
  ROOM_TOKEN,
  type Room,
  type RoomChange,
  type RoomInvitation,
  type UpdateRoomBody,
} from '@voice/protocol';
import { AppError } from '../errors.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import { LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import type { Logger } from '../logger.ts';
import { hashPassword, verifyPassword } from '../passwords.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import type { RoomBans } from './RoomBans.ts';
import type { RoomMembership } from './RoomMembership.ts';
import type { RoomPlacements } from './RoomPlacements.ts';
import type { InvitationRow, RoomAccessRow, RoomChanges, RoomRepository, RoomRow } from './RoomRepository.ts';
import type { RoomTokens } from './roomToken.ts';
import { participantsMax, tooManyParticipants } from './schema.ts';

export interface RoomDeps {
  rooms: RoomRepository;
  users: UserRepository;
  friends: FriendRepository;
  membership: RoomMembership;
  placements: RoomPlacements;
  tokens: RoomTokens;
  /** Who was removed from which room lately, kept out for a while. */
  bans: RoomBans;
  limiter: RateLimiter;
  notifier: Notifier;
  bus: Bus;
  logger: Logger;
}

/**
 * A room to create, its capacity, voices heard and stage mode settled (the schema fills in the
 * defaults and holds the capacity to participantsMax).
 */
export type NewRoomBody = CreateRoomBody & { maxParticipants: number; loudest: number; stage: boolean };

/** How someone comes in: with a password typed, or through an invitation (which stands for it). */
interface Entry {
  password?: string;
  invited?: boolean;
  /** The `/rtc` URL their browser could not reach on the last try (see RoomPlacements.place). */
  unreachable?: string | undefined;
}

/** Told of someone about to be let into a room, after every check (OneVoice ends their call). */
export type EnteringListener = (userId: string) => Promise<void>;

export class RoomService {
  readonly #entering: EnteringListener[] = [];

  constructor(readonly deps: RoomDeps) {
    // A room deleted while the bus was down was not closed on its media server: close it now.
    deps.membership.onHeldAfterOutage((_serverId, roomIds) => this.#closeDeleted(roomIds));
  }

  /** Creates a room administered by `userId`. */
  async create(userId: string, body: NewRoomBody): Promise<Room> {
    let roomId: string;
    try {
      roomId = await this.deps.rooms.insert({
        name: body.name,
        // An empty description is no description.
        description: body.description || null,
        type: body.type,
        password_hash: body.password === undefined ? null : await hashPassword(body.password),
        max_participants: body.maxParticipants,
        loudest: body.loudest,
        stage: body.stage,
        admin_id: userId,
      });
    } catch (error) {
      this.deps.logger.error('room not created', { error });
      throw new AppError('ROOM_CREATE_FAILED');
    }
    await this.#announce({ type: 'updated', roomId });
    return this.get(userId, roomId);
  }

  /** The rooms `userId` may see (see RoomRepository.list). */
  async list(userId: string, query: string | undefined): Promise<Room[]> {
    return this.#present(await this.deps.rooms.list(userId, query));
  }

  async get(userId: string, roomId: string): Promise<Room> {
    const [room] = await this.#present([await this.#visible(userId, roomId)]);
    return room as Room;
  }

  /**
   * The admin changes the room; `password: null` removes the password. Its capacity is held to
   * what the room may have (a stage more), which only the room itself tells.
   */
  async update(userId: string, roomId: string, body: UpdateRoomBody): Promise<Room> {
    const before = await this.#administered(userId, roomId);
    if (body.maxParticipants !== undefined && body.maxParticipants > participantsMax(before.stage)) {
      throw tooManyParticipants(before.stage);
    }
    const changes: RoomChanges = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.description !== undefined) changes.description = body.description || null;
    if (body.type !== undefined) changes.type = body.type;
    if (body.locked !== undefined) changes.locked = body.locked;
    if (body.maxParticipants !== undefined) changes.max_participants = body.maxParticipants;
    if (body.loudest !== undefined) changes.loudest = body.loudest;
    if (body.password !== undefined)
      changes.password_hash = body.password === null ? null : await hashPassword(body.password);
    await this.deps.rooms.update(roomId, changes);
    const wasPublic = before.type === 'public' && changes.type === 'private';
    await this.#announce(wasPublic ? { type: 'updated', roomId, wasPublic } : { type: 'updated', roomId });
    return this.get(userId, roomId);
  }

  /** The admin deletes the room; its media server closes it and everyone in it leaves. */
  async delete(userId: string, roomId: string): Promise<void> {
    const room = await this.#administered(userId, roomId);
    // Asked before the visits and invitations go with the room.
    const viewers = room.type === 'public' ? null : await this.deps.rooms.privateViewers(roomId);
    const invited = await this.deps.rooms.invitees(roomId);
    // Gone from the database first, so nobody gets in again while it closes.
    await this.deps.rooms.delete(roomId);
    await this.#announce({ type: 'removed', roomId, viewers });
    await Promise.all(invited.map(({ id, invitee_id }) => this.#invitationRemoved(invitee_id, id, roomId)));
    await this.deps.bus.publish(roomCommandsChannel, { type: 'close', roomId });
    // The room is gone either way; what Redis keeps of it expires by itself.
    await Promise.all([this.deps.placements.forget(roomId), this.deps.membership.forget(roomId)]).catch(
      (error: unknown) => {
        if (!(error instanceof RedisUnavailableError)) throw error;
        this.deps.logger.warn('deleted room not forgotten in Redis', { roomId, error });
      },
    );
  }

  /** Closes, on their media servers, those of `roomIds` that no longer exist. */
  async #closeDeleted(roomIds: readonly string[]): Promise<void> {
    if (roomIds.length === 0) return;
    const existing = await this.deps.rooms.existing(roomIds);
    const deleted = roomIds.filter((roomId) => !existing.has(roomId));
    if (deleted.length === 0) return;
    this.deps.logger.info('closing rooms deleted while the bus was down', { rooms: deleted.length });
    for (const roomId of deleted) {
      await this.deps.bus.publish(roomCommandsChannel, { type: 'close', roomId });
      await Promise.all([this.deps.placements.forget(roomId), this.deps.membership.forget(roomId)]);
    }
  }

  /**
   * Lets `userId` into the room: the room token and the media server to take it to. `unreachable`:
   * the media server URL their browser could not reach on the last try.
   */
  async join(
    userId: string,
    roomId: string,
    password?: string,
    unreachable?: string,
  ): Promise<JoinRoomResponse> {
    return this.#enter(userId, await this.#visible(userId, roomId), { password, unreachable });
  }

  /** Has `listener` awaited before each room token this process gives out. */
  onEntering(listener: EnteringListener): void {
    this.#entering.push(listener);
  }

  /**
   * Invites friends of `userId` who may see the room; each invitee's tabs hear of it. An
   * invitation from the admin or a moderator lets someone they removed lately in again.
   */
  async invite(userId: string, roomId: string, userIds: readonly string[]): Promise<RoomInvitation[]> {
    const invitees = [...new Set(userIds)];
    if (invitees.length === 0) throw new AppError('INVITE_EMPTY', 'userIds');
    const room = await this.#visible(userId, roomId);
    const friends = new Set(await this.deps.friends.friendIds(userId));
    if (!invitees.every((id) => friends.has(id))) throw new AppError('NOT_FRIENDS', 'userIds');
    const stored = await this.deps.rooms.invite(roomId, userId, invitees);
    if (room.admin_id === userId || room.moderator)
      await orUnavailable(this.deps.bans.lift(roomId, invitees));
    // A private room is the invitees' to see from now on.
    await this.#announce({ type: 'updated', roomId });
    const rows = await this.deps.rooms.invitations({ ids: stored.map((row) => row.id) });
    const invitations = rows.map(presentInvitation);
    const byId = new Map(invitations.map((invitation) => [invitation.id, invitation]));
    await Promise.all(
      stored.map(({ id, invitee_id }) => {
        const invitation = byId.get(id);
        return (
          invitation && this.deps.notifier.notify(invitee_id, 'room-invitation-received', { invitation })
        );
      }),
    );
    return invitations;
  }

  /**
   * The admin names `targetId` a moderator of the room (`moderator`) or unnames them; the room's
   * media server hears it at once, so someone inside gains or loses the powers without rejoining.
   */
  async setModerator(userId: string, roomId: string, targetId: string, moderator: boolean): Promise<Room> {
    await this.#administered(userId, roomId);
    if (targetId === userId) throw new AppError('MODERATOR_IS_ADMIN', 'userId');
    if (moderator) {
      if (!(await this.deps.users.findById(targetId))) throw new AppError('USER_NOT_FOUND', 'userId');
      if (!(await this.deps.rooms.addModerator(roomId, targetId, ROOM_LIMITS.moderatorsMax))) {
        throw new AppError('TOO_MANY_MODERATORS');
      }
    } else {
      await this.deps.rooms.removeModerator(roomId, targetId);
    }
    try {
      await this.deps.bus.publish(roomCommandsChannel, {
        type: 'moderator',
        roomId,
        peerId: targetId,
        moderator,
      });
    } catch (error) {
      // Stored all the same: their next room token says it.
      this.deps.logger.warn('moderator change not told to the media server', { error });
    }
    await this.#announce({ type: 'updated', roomId });
    return this.get(userId, roomId);
  }

  async invitations(userId: string): Promise<RoomInvitation[]> {
    return (await this.deps.rooms.invitations({ inviteeId: userId })).map(presentInvitation);
  }

  /** Joins the room of the invitation (no password needed) and uses the invitation up. */
  async accept(userId: string, invitationId: string): Promise<JoinRoomResponse> {
    const roomId = await this.deps.rooms.invitationRoom(invitationId, userId);
    if (roomId === null) throw new AppError('NOT_FOUND');
    const joined = await this.#enter(userId, await this.#visible(userId, roomId), { invited: true });
    if (await this.deps.rooms.deleteInvitation(invitationId, userId)) {
      await this.#invitationRemoved(userId, invitationId, roomId);
    }
    return joined;
  }

  async decline(userId: string, invitationId: string): Promise<void> {
    const roomId = await this.deps.rooms.invitationRoom(invitationId, userId);
    if (roomId === null || !(await this.deps.rooms.deleteInvitation(invitationId, userId))) {
      throw new AppError('NOT_FOUND');
    }
    await this.#invitationRemoved(userId, invitationId, roomId);
  }

  /** Every tab of the invitee lets the invitation go. */
  #invitationRemoved(inviteeId: string, invitationId: string, roomId: string): Promise<void> {
    return this.deps.notifier.notify(inviteeId, 'room-invitation-removed', { invitationId, roomId });
  }

  async #enter(
    userId: string,
    room: RoomAccessRow,
    { password, invited = false, unreachable }: Entry,
  ): Promise<JoinRoomResponse> {
    const isAdmin = room.admin_id === userId;
    const peers = await orUnavailable(this.deps.membership.peersIn(room.id));
    // Someone already inside (a reconnect, a second tab) is not new to the room.
    const inside = peers.includes(userId);
    if (!isAdmin && !inside && (await orUnavailable(this.deps.bans.isBanned(room.id, userId)))) {
      throw new AppError('KICKED_RECENTLY');
    }
    if (!isAdmin && !inside) {
      if (room.locked) throw new AppError('ROOM_LOCKED');
      if (room.password_hash !== null && !invited) await this.#checkPassword(userId, room, password);
    }
    // The seat is held until the token is used or lapses: joins at the same moment cannot overfill.
    const untilMs = Date.now() + ROOM_TOKEN.ttlSeconds * 1000;
    const membership = this.deps.membership;
    if (
      !inside &&
      !(await orUnavailable(membership.reserveSeat(room.id, userId, room.max_participants, untilMs)))
    ) {
      throw new AppError('ROOM_FULL');
    }
    try {
      const server = await orUnavailable(this.deps.placements.place(room.id, unreachable));
      const user = await this.deps.users.findById(userId);
      if (!user) throw new AppError('UNAUTHORIZED');
      for (const listener of this.#entering) await orUnavailable(listener(userId));
      await this.deps.rooms.recordVisit(userId, room.id);
      const roomToken = this.deps.tokens.sign({
        userId,
        roomId: room.id,
        displayName: user.display_name ?? user.username,
        avatarUrl: user.avatar_url,
        permissions: { admin: isAdmin, moderator: room.moderator },
        loudest: room.loudest,
        stage: room.stage,
      });
      const [presented] = await this.#present([room]);
      return { roomToken, mediaUrl: server.url, room: presented as Room };
    } catch (error) {
      if (!inside) await membership.releaseSeat(room.id, userId).catch(() => {});
      throw error;
    }
  }

  /** The room as everyone who may see it sees it, or null when it is gone. */
  async present(roomId: string): Promise<Room | null> {
    const row = await this.deps.rooms.find(roomId);
    return row ? ((await this.#present([row]))[0] as Room) : null;
  }

  /** Tells every API process's watching tabs (RoomWatchers); the change itself is done either way. */
  async #announce(change: RoomChange): Promise<void> {
    try {
      await this.deps.bus.publish(roomChangesChannel, change);
    } catch (error) {
      this.deps.logger.warn('room change not announced', { error });
    }
  }

  /** Every try counts against the person and room; a right one is given back. */
  async #checkPassword(userId: string, room: RoomAccessRow, password: string | undefined): Promise<void> {
    if (password === undefined || password === '') throw new AppError('ROOM_PASSWORD_REQUIRED');
    const key = `${userId}:${room.id}`;
    await this.deps.limiter.consume(LIMITS.roomPasswordPerUserRoom, key);
    if (!(await verifyPassword(password, room.password_hash as string)))
      throw new AppError('ROOM_PASSWORD_WRONG');
    await this.deps.limiter.reward(LIMITS.roomPasswordPerUserRoom, key);
  }

  /** The room if `userId` may see it; ROOM_NOT_FOUND otherwise, so private rooms stay unknown. */
  async #visible(userId: string, roomId: string): Promise<RoomAccessRow> {
    const room = await this.deps.rooms.findFor(roomId, userId);
    if (!room || !mayView(room, userId)) throw new AppError('ROOM_NOT_FOUND');
    return room;
  }

  async #administered(userId: string, roomId: string): Promise<RoomAccessRow> {
    const room = await this.#visible(userId, roomId);
    if (room.admin_id !== userId) throw new AppError('FORBIDDEN');
    return room;
  }

  /** Rooms as the wire shows them, with who is in each now (unknown while Redis does not answer). */
  async #present(rows: RoomRow[]): Promise<Room[]> {
    const peers = await this.deps.membership.peersOf(rows.map((row) => row.id)).catch((error: unknown) => {
      if (error instanceof RedisUnavailableError) return null;
      throw error;
    });
    const moderators = await this.deps.rooms.moderatorsOf(rows.map((row) => row.id));
    const people = new Map(
      peers === null
        ? []
        : (await this.deps.rooms.people([...new Set([...peers.values()].flat())])).map((p) => [p.id, p]),
    );
    return rows.map((row) => {
      const participants = (peers?.get(row.id) ?? []).flatMap((id) => people.get(id) ?? []);
      return {
        id: row.id,
        name: row.name,
        description: row.description,
        type: row.type,
        hasPassword: row.password_hash !== null,
        locked: row.locked,
        admin: {
          id: row.admin_id,
          username: row.admin_username,
          display_name: row.admin_display_name,
          avatar_url: row.admin_avatar_url,
        },
        memberCount: peers === null ? null : (peers.get(row.id)?.length ?? 0),
        maxParticipants: row.max_participants,
        loudest: row.loudest,
        stage: row.stage,
        participants,
        moderators: moderators.get(row.id) ?? [],
        created_at: row.created_at.toISOString(),
      };
    });
  }
}

/** `work`, with Redis not answering turned into ROOMS_UNAVAILABLE (503, try again). */
async function orUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RedisUnavailableError) throw new AppError('ROOMS_UNAVAILABLE');
    throw error;
  }
}

/** Public rooms are everyone's; a private one is its admin's, its past members' and its invitees'. */
function mayView(room: RoomAccessRow, userId: string): boolean {
  return room.type === 'public' || room.admin_id === userId || room.visited || room.invited;
}

function presentInvitation(row: InvitationRow): RoomInvitation {
  return {
    id: row.id,
    room_id: row.room_id,
    room_name: row.room_name,
    inviter_username: row.inviter_username,
    inviter_display_name: row.inviter_display_name,
    created_at: row.created_at.toISOString(),
  };
}
