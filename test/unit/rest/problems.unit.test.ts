import { describe, expect, it } from 'vitest';
import { HTTP_STATUS_BY_CODE, problemOf, toJson } from '../../../mcp-gateway/rest/problems.js';
import { toCogitaveError } from '../../../mcp-gateway/rest/invoke.js';
import { CogitaveError, NotFound, Unavailable } from '../../../services/runtime/errors.js';

describe('problem documents', () => {
  it('maps each error code to its HTTP status', () => {
    expect(HTTP_STATUS_BY_CODE).toMatchObject({
      INVALID_ARGUMENT: 400,
      PERMISSION_DENIED: 403,
      NOT_FOUND: 404,
      FAILED_PRECONDITION: 409,
      WRONG_EXPECTED_VERSION: 409,
      UNAVAILABLE: 503,
      INTERNAL: 500,
    });
  });

  it('given a coded error, then its message, code and details as an RFC 9457 document', () => {
    const body = problemOf(
      new CogitaveError('FAILED_PRECONDITION', 'DoD unmet', { unmetDod: [{ id: 'a.b' }] }),
      '/api/tools/x',
    );
    expect(body).toEqual({
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      detail: 'DoD unmet',
      code: 'FAILED_PRECONDITION',
      instance: '/api/tools/x',
      details: { unmetDod: [{ id: 'a.b' }] },
    });
    expect(problemOf(new NotFound('gone'), '/p').status).toBe(404);
    expect(problemOf(new Unavailable('retry later'), '/p')).toMatchObject({
      status: 503,
      detail: 'retry later',
    });
  });

  it('given an unexpected failure, then 500 without its internals', () => {
    const error = toCogitaveError(new Error('password=hunter2 in connection string'));
    expect(error.code).toBe('INTERNAL');
    const body = problemOf(error, '/p');
    expect(body.status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  it('serialises bigints in details (stream revisions) as strings', () => {
    expect(toJson({ revision: 7n })).toBe('{"revision":"7"}');
  });
});
