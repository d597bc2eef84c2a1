import { type ReactNode, useId } from 'react';
import type { Presence } from '../lib/people.ts';
import { Avatar } from './Avatar.tsx';
import './PersonRow.css';
import './presence.css';

interface Props {
  name: string;
  username: string;
  avatarUrl: string | null;
  /** Adds the presence dot to the avatar. */
  presence?: Presence;
  /** A line under the name: presence, "wants to be your friend", ... */
  detail?: ReactNode;
  /**
   * Buttons at the end; they move under the text when the row gets narrow. Gets the id
   * of the name, for aria-describedby: "Accept" then says whose request it accepts.
   */
  actions?: (nameId: string) => ReactNode;
}

/** One person in a list: avatar, name, @username, a detail line and actions. */
export function PersonRow({ name, username, avatarUrl, presence, detail, actions }: Props) {
  const nameId = useId();
  return (
    <li className="person-row">
      <div className="person-row__main">
        <span className="person-row__avatar">
          <Avatar name={name} url={avatarUrl} size={44} />
          {(presence === 'online' || presence === 'in-call' || presence === 'in-room') && (
            <span className={`person-row__dot person-row__dot--${presence}`} aria-hidden="true" />
          )}
        </span>
        <div className="person-row__text">
          <p className="person-row__title">
            <span className="person-row__name" id={nameId}>
              {name}
            </span>
            <span className="person-row__handle">@{username}</span>
          </p>
          {detail && <div className="person-row__detail">{detail}</div>}
        </div>
      </div>
      {actions && <div className="person-row__actions">{actions(nameId)}</div>}
    </li>
  );
}
