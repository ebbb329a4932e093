import type { ServerResponse } from 'node:http';
import type { CogitaveError, ErrorCode } from '../../services/runtime/errors.js';

/**
 * RFC 9457 problem documents for the REST surface. The status follows the error's code, the
 * same code the MCP server reports in a tool error, so both surfaces agree on what went wrong.
 */

export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  PERMISSION_DENIED: 403,
  FAILED_PRECONDITION: 409,
  WRONG_EXPECTED_VERSION: 409,
  DUPLICATE_EVENT_ID: 409,
  UNAVAILABLE: 503,
  IN_USE: 503,
  CONFIG_INVALID: 500,
  INTERNAL: 500,
};

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The coded error (`INVALID_ARGUMENT`, `NOT_FOUND`, ...), as MCP tool errors carry it. */
  readonly code?: string;
  readonly instance?: string;
  /** The error's facts as data (unmet DoD items, allowed stages, argument issues). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export const problem = (
  status: number,
  detail: string,
  extra: Partial<Omit<Problem, 'status' | 'detail'>> = {},
): Problem => ({
  type: 'about:blank',
  title: TITLES[status] ?? 'Error',
  status,
  detail,
  ...extra,
});

export const problemOf = (error: CogitaveError, instance: string): Problem => {
  const status = HTTP_STATUS_BY_CODE[error.code];
  // Internal failures say nothing beyond "see the log": their message may carry internals.
  if (status >= 500 && error.code !== 'UNAVAILABLE') {
    return problem(status, 'The request failed unexpectedly; see the server log.', {
      code: error.code,
      instance,
    });
  }
  const hasDetails = Object.keys(error.details).length > 0;
  return problem(status, error.message, {
    code: error.code,
    instance,
    ...(hasDetails ? { details: error.details } : {}),
  });
};

/** JSON with bigints (stream revisions in error details) as strings. */
export const toJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? item.toString() : item,
  );

export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void => {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(toJson(body));
};

export const sendProblem = (
  res: ServerResponse,
  body: Problem,
  headers: Readonly<Record<string, string>> = {},
): void => {
  res.writeHead(body.status, {
    'content-type': 'application/problem+json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(toJson(body));
};
