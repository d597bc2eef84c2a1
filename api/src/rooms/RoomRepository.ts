/** Queries of rooms, the visits that keep private rooms listed, and room invitations. */
import { randomUUID } from 'node:crypto';
import type { RoomPerson, RoomType } from '@voice/protocol';
import type { Db } from '../db/index.ts';
import { literalLike } from '../friends/FriendRepository.ts';
import { isUuid } from '../http/schemas.ts';

/** A room with its admin's public profile. */
export interface RoomRow {
  id: string;
  name: string;
  description: string | null;
  type: RoomType;
  password_hash: string | null;
  locked: boolean;
  max_participants: number;
  /** Voices each member hears at once, the loudest. */
  loudest: number;
  /** A stage: only speakers talk. Fixed when the room is made. */
  stage: boolean;
  admin_id: string;
  created_at: Date;
  admin_username: string;
  admin_display_name: string | null;
  admin_avatar_url: string | null;
}

/** A room as one person sees it: may they see it, and why; and are they one of its moderators. */
export interface RoomAccessRow extends RoomRow {
  visited: boolean;
  invited: boolean;
  moderator: boolean;
}

/** What a person is in a room beyond a member. */
export type RoomRole = 'admin' | 'moderator' | null;

export type NewRoom = Pick<
  RoomRow,
  'name' | 'description' | 'type' | 'password_hash' | 'max_participants' | 'loudest' | 'stage' | 'admin_id'
>;

export type RoomChanges = Partial<
  Pick<RoomRow, 'name' | 'description' | 'type' | 'password_hash' | 'locked' | 'max_participants' | 'loudest'>
>;

/** A pending invitation with its room's name and its inviter. */
export interface InvitationRow {
  id: string;
  room_id: string;
  room_name: string;
  inviter_username: string;
  inviter_display_name: string | null;
  created_at: Date;
}

const ROOM_COLUMNS = [
  'r.*',
  'a.username as admin_username',
  'a.display_name as admin_display_name',
  'a.avatar_url as admin_avatar_url',
];

/** Largest number of rooms one list answers. */
const LIST_MAX = 200;

export class RoomRepository {
  constructor(readonly db: Db) {}

  async insert(room: NewRoom): Promise<string> {
    const id = randomUUID();
    await this.db('rooms').insert({ id, ...room });
    return id;
  }

  /** Those of `roomIds` that are rooms (anything but a room id is none). */
  async existing(roomIds: readonly string[]): Promise<Set<string>> {
    const ids = roomIds.filter(isUuid);
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.db('rooms').whereIn('id', ids).select('id');
    return new Set(rows.map((row) => row.id));
  }

  /** The room with `userId`'s visit and invitation, or undefined. */
  findFor(roomId: string, userId: string): Promise<RoomAccessRow | undefined> {
    return this.#rooms(userId).where('r.id', roomId).first();
  }

  /** The room, whoever asks (for telling those who may see it of a change). */
  find(roomId: string): Promise<RoomRow | undefined> {
    return this.db('rooms as r')
      .join('users as a', 'a.id', 'r.admin_id')
      .where('r.id', roomId)
      .first<RoomRow | undefined>(...ROOM_COLUMNS);
  }

  /** Those of `userIds` who may see the room (see `list`); none when there is no such room. */
  async viewersAmong(roomId: string, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const room = await this.db('rooms').where({ id: roomId }).first('type', 'admin_id');
    if (!room) return new Set();
    if (room.type === 'public') return new Set(userIds);
    const rows: Array<{ id: string }> = await this.db('room_visits')
      .where('room_id', roomId)
      .whereIn('user_id', userIds)
      .select('user_id as id')
      .union((q) =>
        q
          .from('room_invitations')
          .where('room_id', roomId)
          .whereIn('invitee_id', userIds)
          .select('invitee_id as id'),
      );
    const viewers = new Set(rows.map((row) => row.id));
    if (userIds.includes(room.admin_id)) viewers.add(room.admin_id);
    return viewers;
  }

  /** Everyone who may see a private room: its admin, past members and invitees. */
  async privateViewers(roomId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db('rooms')
      .where('id', roomId)
      .select('admin_id as id')
      .union((q) => q.from('room_visits').where('room_id', roomId).select('user_id as id'))
      .union((q) => q.from('room_invitations').where('room_id', roomId).select('invitee_id as id'));
    return rows.map((row) => row.id);
  }

  /**
   * The rooms `userId` may see, newest first: every public room and the private rooms they
   * administer, joined before or are invited to; with `query`, only names containing it.
   */
  list(userId: string, query: string | undefined): Promise<RoomAccessRow[]> {
    const rooms = this.#rooms(userId)
      .where((q) =>
        q
          .where('r.type', 'public')
          .orWhere('r.admin_id', userId)
          .orWhereExists((v) => v.from('room_visits').whereRaw('room_id = r.id').where('user_id', userId))
          .orWhereExists((i) =>
            i.from('room_invitations').whereRaw('room_id = r.id').where('invitee_id', userId),
          ),
      )
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id')
      .limit(LIST_MAX);
    if (query) rooms.whereRaw("lower(r.name) LIKE ? ESCAPE '\\'", [`%${literalLike(query.toLowerCase())}%`]);
    return rooms;
  }

  async update(roomId: string, changes: RoomChanges): Promise<void> {
    if (Object.keys(changes).length > 0) await this.db('rooms').where({ id: roomId }).update(changes);
  }

  /** Deletes the room with its visits and invitations; true when there was one. */
  async delete(roomId: string): Promise<boolean> {
    return (await this.db('rooms').where({ id: roomId }).delete()) > 0;
  }

  /** The moderators of each of `roomIds`, in the order they were named (rooms without any left out). */
  async moderatorsOf(roomIds: readonly string[]): Promise<Map<string, string[]>> {
    const moderators = new Map<string, string[]>();
    if (roomIds.length === 0) return moderators;
    const rows: Array<{ room_id: string; user_id: string }> = await this.db('room_moderators')
      .whereIn('room_id', roomIds)
      .orderBy('created_at')
      .orderBy('user_id')
      .select('room_id', 'user_id');
    for (const { room_id, user_id } of rows)
      moderators.set(room_id, [...(moderators.get(room_id) ?? []), user_id]);
    return moderators;
  }

  /**
   * Names `userId` a moderator of `roomId` unless the room has `max` already (false then);
   * naming someone again changes nothing. One statement, so two admins' tabs cannot pass `max`.
   */
  async addModerator(roomId: string, userId: string, max: number): Promise<boolean> {
    const result = await this.db.raw(
      `INSERT INTO room_moderators (room_id, user_id)
       SELECT ?, ? WHERE (SELECT count(*) FROM room_moderators WHERE room_id = ?) < ?
       ON CONFLICT (room_id, user_id) DO NOTHING
       RETURNING user_id`,
      [roomId, userId, roomId, max],
    );
    if ((result.rows as unknown[]).length > 0) return true;
    return (
      (await this.db('room_moderators').where({ room_id: roomId, user_id: userId }).first()) !== undefined
    );
  }

  async removeModerator(roomId: string, userId: string): Promise<void> {
    await this.db('room_moderators').where({ room_id: roomId, user_id: userId }).delete();
  }

  /** What `userId` is in `roomId`: its admin, one of its moderators, or neither (also for no such room). */
  async roleOf(roomId: string, userId: string): Promise<RoomRole> {
    if (!isUuid(roomId) || !isUuid(userId)) return null;
    const row = await this.db('rooms as r')
      .where('r.id', roomId)
      .first(
        'r.admin_id',
        this.db.raw(
          'EXISTS (SELECT 1 FROM room_moderators m WHERE m.room_id = r.id AND m.user_id = ?) AS moderator',
          [userId],
        ),
      );
    if (!row) return null;
    if (row.admin_id === userId) return 'admin';
    return row.moderator ? 'moderator' : null;
  }

  async recordVisit(userId: string, roomId: string): Promise<void> {
    await this.db('room_visits')
      .insert({ user_id: userId, room_id: roomId, last_joined_at: new Date() })
      .onConflict(['user_id', 'room_id'])
      .merge(['last_joined_at']);
  }

  /** Public profiles of `ids` (those that still exist). */
  people(ids: readonly string[]): Promise<RoomPerson[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db('users').whereIn('id', ids).select('id', 'username', 'display_name', 'avatar_url');
  }

  /** Invites each of `inviteeIds` (a repeated invitation is renewed); answers each invitation's id. */
  invite(
    roomId: string,
    inviterId: string,
    inviteeIds: readonly string[],
  ): Promise<Array<{ id: string; invitee_id: string }>> {
    const rows = inviteeIds.map((inviteeId) => ({
      id: randomUUID(),
      room_id: roomId,
      inviter_id: inviterId,
      invitee_id: inviteeId,
      created_at: new Date(),
    }));
    return this.db('room_invitations')
      .insert(rows)
      .onConflict(['room_id', 'invitee_id'])
      .merge(['inviter_id', 'created_at'])
      .returning(['id', 'invitee_id']);
  }

  /** Who is invited to `roomId` and by which invitation. */
  invitees(roomId: string): Promise<Array<{ id: string; invitee_id: string }>> {
    return this.db('room_invitations').where({ room_id: roomId }).select('id', 'invitee_id');
  }

  /** Pending invitations: `userId`'s (newest first), or those of `ids`. */
  invitations({ inviteeId, ids }: { inviteeId?: string; ids?: readonly string[] }): Promise<InvitationRow[]> {
    const query = this.db('room_invitations as i')
      .join('rooms as r', 'r.id', 'i.room_id')
      .join('users as u', 'u.id', 'i.inviter_id')
      .orderBy('i.created_at', 'desc')
      .select(
        'i.id',
        'i.room_id',
        'r.name as room_name',
        'u.username as inviter_username',
        'u.display_name as inviter_display_name',
        'i.created_at',
      );
    if (inviteeId !== undefined) query.where('i.invitee_id', inviteeId);
    if (ids !== undefined) query.whereIn('i.id', ids);
    return query;
  }

  /** The room of `userId`'s pending invitation `invitationId`, or null. */
  async invitationRoom(invitationId: string, userId: string): Promise<string | null> {
    const row = await this.db('room_invitations')
      .where({ id: invitationId, invitee_id: userId })
      .first('room_id');
    return (row?.room_id as string | undefined) ?? null;
  }

  /** Removes `userId`'s invitation `invitationId`; true when there was one. */
  async deleteInvitation(invitationId: string, userId: string): Promise<boolean> {
    return (await this.db('room_invitations').where({ id: invitationId, invitee_id: userId }).delete()) > 0;
  }

  #rooms(userId: string) {
    return this.db('rooms as r')
      .join('users as a', 'a.id', 'r.admin_id')
      .select<RoomAccessRow[]>(
        ...ROOM_COLUMNS,
        this.db.raw(
          'EXISTS (SELECT 1 FROM room_visits v WHERE v.room_id = r.id AND v.user_id = ?) AS visited',
          [userId],
        ),
        this.db.raw(
          'EXISTS (SELECT 1 FROM room_invitations i WHERE i.room_id = r.id AND i.invitee_id = ?) AS invited',
          [userId],
        ),
        this.db.raw(
          'EXISTS (SELECT 1 FROM room_moderators m WHERE m.room_id = r.id AND m.user_id = ?) AS moderator',
          [userId],
        ),
      );
  }
}
