/**
 * What is pushed when (spec sections 4 and 9): an incoming call while it rings, then its
 * withdrawal; a friend request; a room invitation; a test. Each in the recipient's language,
 * with the sender's name and picture, and only to a person with no shown tab (who sees the
 * in-page alert instead). Everything here runs off the request path: the callers do not wait.
 */
import {
  callNotificationTag,
  type PushPayload,
  type RoomInvitation,
  type UserSummary,
} from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { UserRepository, UserRow } from '../users/UserRepository.ts';
import type { PushSender } from './PushSender.ts';
import type { PushSubscriptions } from './PushSubscriptions.ts';
import { type PushTexts, pushTexts } from './pushTexts.ts';
import type { VisibleTabs } from './VisibleTabs.ts';

export interface PushNotificationsDeps {
  subscriptions: PushSubscriptions;
  sender: PushSender;
  users: UserRepository;
  visibleTabs: VisibleTabs;
  logger: Logger;
  /** The app's origin, for absolute picture URLs. */
  publicUrl: string;
  /** How long a call may ring: a call's withdrawal is remembered no longer. */
  ringTimeoutMs: number;
}

/** Fills `{{placeholders}}` of a text in the recipient's language. */
type Fill = (text: string, values?: Record<string, string>) => string;
/** Makes the payload from the recipient's texts. */
type Build = (texts: PushTexts, fill: Fill) => PushPayload | Promise<PushPayload>;

export class PushNotifications {
  readonly #deps: PushNotificationsDeps;
  /**
   * Calls whose ringing is pushed from here: callId → the callee, whether a push went out,
   * and the timer that forgets the call.
   */
  readonly #pushedCalls = new Map<
    string,
    { userId: string; pushed: Promise<boolean>; timer: NodeJS.Timeout }
  >();
  readonly #background = new Set<Promise<void>>();

  constructor(deps: PushNotificationsDeps) {
    this.#deps = deps;
  }

  /** A call rings `calleeId`'s tabs. */
  incomingCall(calleeId: string, callId: string, caller: UserSummary): void {
    const tag = callNotificationTag(callId);
    const avatar = this.#absolute(caller.avatar_url);
    const pushed = this.#push(calleeId, (t, fill) => ({
      type: 'incoming-call',
      tag,
      callId,
      title: t.incomingCall.title,
      body: fill(t.incomingCall.body, { name: nameOf(caller) }),
      icon: avatar,
      actions: { accept: t.incomingCall.accept, reject: t.incomingCall.reject },
      caller: { ...caller, avatar_url: avatar },
    }));
    const timer = setTimeout(() => this.#pushedCalls.delete(callId), this.#deps.ringTimeoutMs + 60_000);
    timer.unref();
    this.#pushedCalls.set(callId, { userId: calleeId, pushed, timer });
  }

  /** The call stopped ringing for `calleeId` (answered elsewhere, cancelled, declined, timed out). */
  callEnded(calleeId: string, callId: string): void {
    const ringing = this.#pushedCalls.get(callId);
    if (!ringing || ringing.userId !== calleeId) return;
    clearTimeout(ringing.timer);
    this.#pushedCalls.delete(callId);
    // Withdrawn even when a tab is shown now: the notification is still on the screen.
    const withdraw = ringing.pushed.then(
      (pushed) =>
        pushed &&
        this.#push(calleeId, () => ({ type: 'withdraw', tag: callNotificationTag(callId) }), {
          evenIfShown: true,
        }),
    );
    this.#track(withdraw.then(() => undefined));
  }

  friendRequest(recipientId: string, from: UserSummary): void {
    const avatar = this.#absolute(from.avatar_url);
    void this.#push(recipientId, (t, fill) => ({
      type: 'friend-request',
      tag: `friend-request:${from.id}`,
      userId: from.id,
      title: t.friendRequest.title,
      body: fill(t.friendRequest.body, { name: nameOf(from) }),
      icon: avatar,
      actions: { accept: t.friendRequest.accept },
    }));
  }

  roomInvitation(inviteeId: string, invitation: RoomInvitation): void {
    const name = invitation.inviter_display_name ?? invitation.inviter_username;
    void this.#push(inviteeId, async (t, fill) => ({
      type: 'room-invitation',
      tag: `room-invitation:${invitation.id}`,
      invitationId: invitation.id,
      roomId: invitation.room_id,
      title: t.roomInvitation.title,
      body: fill(t.roomInvitation.body, { name, room: invitation.room_name }),
      icon: this.#absolute(
        (await this.#deps.users.findByLogin(invitation.inviter_username))?.avatar_url ?? null,
      ),
      actions: { join: t.roomInvitation.join },
    }));
  }

  /** The settings' "send a test notification": to every browser of the person, shown tab or not. */
  async test(userId: string): Promise<void> {
    await this.#push(
      userId,
      (t, fill) => ({
        type: 'test',
        tag: 'test',
        title: t.test.title,
        body: fill(t.test.body),
        icon: null,
      }),
      { evenIfShown: true },
    );
  }

  /** Waits for the pushes being prepared (the sender waits for those being sent). */
  async close(): Promise<void> {
    for (const { timer } of this.#pushedCalls.values()) clearTimeout(timer);
    this.#pushedCalls.clear();
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /** Queues the payload for each of `userId`'s browsers; true when there was at least one. Never rejects. */
  #push(userId: string, build: Build, { evenIfShown = false } = {}): Promise<boolean> {
    const work = this.#prepare(userId, build, evenIfShown).catch((error: unknown) => {
      this.#deps.logger.warn('push: not sent', { userId, error });
      return false;
    });
    this.#track(work.then(() => undefined));
    return work;
  }

  /** Keeps `work` for close() to wait for. */
  #track(work: Promise<void>): void {
    this.#background.add(work);
    work.finally(() => this.#background.delete(work));
  }

  async #prepare(userId: string, build: Build, evenIfShown: boolean): Promise<boolean> {
    const { subscriptions, users, visibleTabs, sender } = this.#deps;
    if (!evenIfShown && visibleTabs.hasVisible(userId)) return false;
    const targets = await subscriptions.listFor(userId);
    if (targets.length === 0) return false;
    const recipient: UserRow | undefined = await users.findById(userId);
    if (!recipient) return false;
    const { texts, fill } = pushTexts(recipient.language);
    const payload = await build(texts, fill);
    for (const target of targets) sender.send(target, payload);
    return true;
  }

  #absolute(url: string | null): string | null {
    return url === null ? null : new URL(url, `${this.#deps.publicUrl}/`).href;
  }
}

function nameOf(user: UserSummary): string {
  return user.display_name ?? user.username;
}
