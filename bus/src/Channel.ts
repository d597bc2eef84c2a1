/**
 * A named bus channel with the schema of its messages. What arrives on a channel comes
 * from another process (or a stranger with access to Redis): it is parsed against the
 * schema before any handler sees it, and a message of the wrong shape is dropped with a
 * log line.
 */
import type { z } from 'zod';

/** A channel and the type of what travels on it. */
export interface Channel<T> {
  readonly name: string;
  readonly schema: z.ZodType<T>;
}

/** Declares a channel; `name` is the protocol's channel name. */
export function defineChannel<T>(name: string, schema: z.ZodType<T>): Channel<T> {
  return Object.freeze({ name, schema });
}
