import type { z } from 'zod';
import { InvalidArgument } from '../runtime/errors.js';

/** One problem of a refused input: the field (dotted path, empty for the whole input) and why. */
export interface InputIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Parses an input (a command's, or a read's arguments) or throws InvalidArgument("<what>:
 * field: problem; …"), before anything is read or appended. `details.issues` lists the same
 * problems as data.
 */
export const parseInput = <S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> => {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: InputIssue[] = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const described = issues
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
  throw new InvalidArgument(`${what}: ${described}`, { issues });
};
