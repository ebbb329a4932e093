import { z } from 'zod';

/** JSON Schema 2020-12 of a tool's input (what callers may send) or output (what it returns). */
export interface ObjectJsonSchema {
  [key: string]: unknown;
  type: 'object';
}

export const toJsonSchema = (schema: z.ZodObject, io: 'input' | 'output'): ObjectJsonSchema => {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return { ...json, type: 'object' };
};

const formatPath = (path: readonly PropertyKey[]): string =>
  path.length === 0
    ? '(arguments)'
    : path
        .map((key, index) =>
          typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`,
        )
        .join('');

const describeIssue = (issue: z.core.$ZodIssue, allowedFields: readonly string[]): string => {
  const where = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.join(', ');
    const allowed = issue.path.length === 0 ? `; allowed: ${allowedFields.join(', ')}` : '';
    return `${where}: unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${allowed}`;
  }
  if (issue.code === 'invalid_value') {
    return `${where}: must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return `${where}: ${issue.message}`;
};

/**
 * One line per bad field, each naming the field and what is allowed, for the model to act on:
 * `Invalid arguments for docs_search: limit: Too big: expected number to be <=50`.
 */
export const describeValidationError = (
  tool: string,
  error: z.ZodError,
  allowedFields: readonly string[],
): string =>
  `Invalid arguments for ${tool}: ${error.issues
    .map((issue) => describeIssue(issue, allowedFields))
    .join('; ')}`;
