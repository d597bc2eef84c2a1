/**
 * The host of a stage run: the page of the tool's first account (the room's admin, or one of its
 * moderators), on stage from the start, that invites the run's other speakers as their hands go
 * up, through the app as a host would: the "Invite NAME to speak" button on a raised hand's tile.
 * In a room past the app's search threshold, a hand whose tile is out of view is found by typing
 * its name in the people search. Its page keeps painting (a hidden page has no buttons to press).
 */
import type { Locator, Page } from 'playwright-core';

/** How often the host looks for raised hands to invite. */
const LOOK_EVERY_MS = 250;
/** A taller window than a participant's: more tiles rendered, so that hands are in view. */
const HOST_VIEWPORT = { width: 960, height: 1600 };
/** The app's people search (`rooms.view.search`), shown in rooms of more than 12 people. */
const PEOPLE_SEARCH = '.room-view__search input[type="search"]';
/** Clicks and fills on a page that is busy painting a large room. */
const ACTION_TIMEOUT_MS = 5_000;
/** How long a searched name's tile may take to show its invite button (one render). */
const SEARCH_WAIT_MS = 500;

/** The label of the app's invite button (`rooms.stage.invite`, en-US: the generator's locale). */
export function inviteLabel(name: string): string {
  return `Invite ${name} to speak`;
}

export class StageHost {
  readonly #page: Page;
  /** Display names of the speakers still to invite. */
  readonly #pending: Set<string>;
  /** The next pending name the search looks for, in turn. */
  #searchTurn = 0;

  constructor(page: Page, speakers: readonly string[]) {
    this.#page = page;
    this.#pending = new Set(speakers);
  }

  /** Invites until every speaker is on stage, or the page closes (the host left). Never throws. */
  async run(): Promise<void> {
    await this.#page.setViewportSize(HOST_VIEWPORT).catch(() => {});
    while (this.#pending.size > 0 && !this.#page.isClosed()) {
      try {
        if (!(await this.#inviteInView())) await this.#inviteBySearch();
      } catch {
        // A tile that went away under the click (the hand lowered, the speaker left): look again.
      }
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
  }

  /** Clicks the invite button of every pending speaker whose tile is rendered; whether any was. */
  async #inviteInView(): Promise<boolean> {
    let invited = false;
    for (const name of [...this.#pending]) {
      const button = this.#inviteButton(name);
      if ((await button.count()) === 0) continue;
      await this.#invite(button, name);
      invited = true;
    }
    return invited;
  }

  /** Types one pending name (in turn) in the people search, invites it if its hand is up, clears the search. */
  async #inviteBySearch(): Promise<void> {
    const search = this.#page.locator(PEOPLE_SEARCH);
    if ((await search.count()) === 0) return;
    const names = [...this.#pending];
    const name = names[this.#searchTurn++ % names.length] as string;
    await search.fill(name, { timeout: ACTION_TIMEOUT_MS });
    try {
      const button = this.#inviteButton(name);
      const shown = await button
        .waitFor({ state: 'attached', timeout: SEARCH_WAIT_MS })
        .then(() => true)
        .catch(() => false);
      if (shown) await this.#invite(button, name);
    } finally {
      await search.fill('', { timeout: ACTION_TIMEOUT_MS });
    }
  }

  /** The invite button on `name`'s tile (its first, should the app render two). */
  #inviteButton(name: string): Locator {
    return this.#page.getByRole('button', { name: inviteLabel(name), exact: true }).first();
  }

  /** Presses `button` and counts `name` as invited. */
  async #invite(button: Locator, name: string): Promise<void> {
    await button.click({ timeout: ACTION_TIMEOUT_MS });
    this.#pending.delete(name);
  }
}
