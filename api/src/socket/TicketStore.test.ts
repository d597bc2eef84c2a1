import { describe, expect, it } from 'vitest';
import {
  FallbackTicketStore,
  MemoryTicketStore,
  type TicketHolder,
  type TicketStore,
} from './TicketStore.ts';

class Down extends Error {}

/** A shared store that is down until told otherwise. */
class FlakyStore extends MemoryTicketStore implements TicketStore {
  down = true;
  override async put(ticket: string, holder: TicketHolder, ttlMs: number) {
    if (this.down) throw new Down('Redis is unavailable');
    return super.put(ticket, holder, ttlMs);
  }
  override async take(ticket: string) {
    if (this.down) throw new Down('Redis is unavailable');
    return super.take(ticket);
  }
}

const alice = { userId: 'u-alice', sessionId: 's-alice' };

describe('FallbackTicketStore', () => {
  it('keeps a ticket in memory while the shared store is down, good for one handshake', async () => {
    const shared = new FlakyStore();
    const store = new FallbackTicketStore(shared, new MemoryTicketStore(), (error) => error instanceof Down);
    await store.put('t1', alice, 30_000);
    expect(await store.take('t1')).toEqual(alice);
    // Spent: the memory no longer has it, and the shared store (down) is asked and fails.
    await expect(store.take('t1')).rejects.toBeInstanceOf(Down);
    shared.down = false;
    expect(await store.take('t1')).toBeNull();
  });

  it('uses the shared store when it answers, and passes on errors that are not an outage', async () => {
    const shared = new FlakyStore();
    shared.down = false;
    const store = new FallbackTicketStore(shared, new MemoryTicketStore(), (error) => error instanceof Down);
    await store.put('t2', alice, 30_000);
    expect(await shared.take('t2')).toEqual(alice);
    const broken = new FallbackTicketStore(shared, new MemoryTicketStore(), () => false);
    shared.down = true;
    await expect(broken.put('t3', alice, 30_000)).rejects.toBeInstanceOf(Down);
  });
});
