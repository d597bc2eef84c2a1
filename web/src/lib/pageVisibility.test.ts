import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pageHidden, whileVisible } from './pageVisibility.ts';

/** A document that is only what visibility needs: its state and the event when it changes. */
class VisibilityDocument extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';

  show(state: DocumentVisibilityState): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

describe('whileVisible', () => {
  let page: VisibilityDocument;
  let runs: string[];
  const work = () => {
    runs.push('start');
    return () => runs.push('stop');
  };

  beforeEach(() => {
    page = new VisibilityDocument();
    (globalThis as { document?: unknown }).document = page;
    runs = [];
  });
  afterEach(() => {
    delete (globalThis as { document?: unknown }).document;
  });

  it('starts at once on a page that shows, stops when it is hidden and starts again when back', () => {
    const end = whileVisible(work);
    expect(runs).toEqual(['start']);
    page.show('hidden');
    expect(pageHidden()).toBe(true);
    expect(runs).toEqual(['start', 'stop']);
    page.show('hidden');
    expect(runs).toEqual(['start', 'stop']);
    page.show('visible');
    expect(runs).toEqual(['start', 'stop', 'start']);
    end();
    expect(runs).toEqual(['start', 'stop', 'start', 'stop']);
    page.show('hidden');
    page.show('visible');
    expect(runs).toEqual(['start', 'stop', 'start', 'stop']);
  });

  it('does nothing on a hidden page until it shows, and ends without a stop it never started', () => {
    page.visibilityState = 'hidden';
    const end = whileVisible(work);
    expect(runs).toEqual([]);
    page.show('visible');
    expect(runs).toEqual(['start']);
    page.show('hidden');
    end();
    expect(runs).toEqual(['start', 'stop']);
  });
});
