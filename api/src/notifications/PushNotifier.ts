/**
 * The app socket's Notifier that also pushes: the events a person must hear even with no
 * tab shown (an incoming call and its end, a friend request, a room invitation) go to
 * PushNotifications as they go to the sockets. The features stay unaware of web push.
 */
import type { Bus } from '@voice/bus';
import type { ServerEventName, ServerEvents } from '@voice/protocol';
import { Notifier } from '../socket/Notifier.ts';
import type { PushNotifications } from './PushNotifications.ts';

export class PushNotifier extends Notifier {
  readonly #pushes: PushNotifications;

  constructor(bus: Bus, pushes: PushNotifications) {
    super(bus);
    this.#pushes = pushes;
  }

  override notify<E extends ServerEventName>(userId: string, event: E, data: ServerEvents[E]): Promise<void> {
    this.#tap(userId, event, data);
    return super.notify(userId, event, data);
  }

  /** The callee's other tabs hear `call-ended` (answered elsewhere) this way. */
  override notifyOtherConnections<E extends ServerEventName>(
    userId: string,
    exceptConnectionId: string,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    this.#tap(userId, event, data);
    return super.notifyOtherConnections(userId, exceptConnectionId, event, data);
  }

  #tap<E extends ServerEventName>(userId: string, event: E, data: ServerEvents[E]): void {
    const pushes = this.#pushes;
    if (event === 'incoming-call') {
      const { callId, caller } = data as ServerEvents['incoming-call'];
      pushes.incomingCall(userId, callId, caller);
    } else if (event === 'call-ended') {
      pushes.callEnded(userId, (data as ServerEvents['call-ended']).callId);
    } else if (event === 'friend-request-received') {
      pushes.friendRequest(userId, (data as ServerEvents['friend-request-received']).from);
    } else if (event === 'room-invitation-received') {
      pushes.roomInvitation(userId, (data as ServerEvents['room-invitation-received']).invitation);
    }
  }
}
