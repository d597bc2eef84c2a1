/** How any feature names and shows a person: friends, calls and rooms all list people. */
import type { User } from '@voice/protocol';

/** The name to show: the display name, else the username. */
export const nameOf = (user: Pick<User, 'display_name' | 'username'>) => user.display_name || user.username;

/** What a person's badge says; `unknown` while our own socket is down and nothing is live. */
export type Presence = 'online' | 'in-call' | 'in-room' | 'offline' | 'unknown';
