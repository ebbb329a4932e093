import { CogitaveError } from '../runtime/errors.js';

/**
 * Every refusal of the bounded query profile names the bound it violated, so a caller (often a
 * model) can tell a typo from a limit and rewrite the query instead of retrying it.
 */
export type QueryBound =
  | 'syntax'
  | 'readOnly'
  | 'clause'
  | 'label'
  | 'edgeType'
  | 'property'
  | 'variable'
  | 'function'
  | 'operator'
  | 'parameter'
  | 'depth'
  | 'limit'
  | 'skip'
  | 'cartesianProduct'
  | 'patternSize'
  | 'traversal'
  | 'timeout';

/** The query text or its parameters break a static rule: rewrite the query. */
export const invalidQuery = (
  bound: QueryBound,
  message: string,
  details: Record<string, unknown> = {},
): CogitaveError => new CogitaveError('INVALID_ARGUMENT', message, { bound, ...details });

/** Well-formed, but the data would make it too expensive: narrow the query. */
export const refusedQuery = (
  bound: QueryBound,
  message: string,
  details: Record<string, unknown> = {},
): CogitaveError => new CogitaveError('FAILED_PRECONDITION', message, { bound, ...details });
