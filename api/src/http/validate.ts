/** Request validation at the edge: one zod schema per route. */
import type { z } from 'zod';
import { AppError } from '../errors.ts';

/** Parses `input` with `schema`; the first problem becomes a VALIDATION error naming its field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  throw new AppError('VALIDATION', field, issue ? `${field ?? 'body'}: ${issue.message}` : undefined);
}
