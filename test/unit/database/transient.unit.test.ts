import { describe, expect, it } from 'vitest';
import {
  isTransientDatabaseError,
  mapDatabaseError,
} from '../../../services/database/transient.js';

describe('transient database errors', () => {
  it.each([
    [
      'a query on a client whose session ended',
      new Error('Client was closed and is not queryable'),
    ],
    ['a session ended mid-query', new Error('Connection terminated unexpectedly')],
    [
      'the server shutting down',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ],
    [
      'the server starting up',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
  ])('given %s, then it is transient and maps to UNAVAILABLE', (_, error) => {
    expect(isTransientDatabaseError(error)).toBe(true);
    expect(mapDatabaseError(error)).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('given a constraint violation, then it is not transient and is left as it is', () => {
    const error = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isTransientDatabaseError(error)).toBe(false);
    expect(mapDatabaseError(error)).toBe(error);
  });
});
