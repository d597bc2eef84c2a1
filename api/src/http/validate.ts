/** Request validation at the edge: one zod schema per route. */
import type { z } from 'zod';
import { AppError } from '../errors.ts';

/** Parses `input` with `schema`; the first problem becomes a VALIDATION error naming its field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const nul = pathToNul(input);
  if (nul !== null) {
    const field = nul || undefined;
    throw new AppError('VALIDATION', field, `${field ?? 'body'}: must not contain a NUL character`);
  }
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  throw new AppError('VALIDATION', field, issue ? `${field ?? 'body'}: ${issue.message}` : undefined);
}

/**
 * The top-level field of the first string holding U+0000 anywhere in `input` ('' for the
 * input itself), or null. PostgreSQL refuses NUL in text, so such a string would come
 * back as a server error. A loop, not recursion: a JSON body may nest deeper than the stack.
 */
function pathToNul(input: unknown): string | null {
  const stack: [unknown, string][] = [[input, '']];
  while (stack.length > 0) {
    const [value, field] = stack.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return field;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) stack.push([child, value === input ? key : field]);
    }
  }
  return null;
}
