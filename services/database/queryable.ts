import type pg from 'pg';

/** Anything that runs a query: the pool, or a client inside a caller's transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * A checked-out client, usually inside a transaction the caller opened: statements that must
 * share one session (a snapshot, `search_path`, COPY) take this rather than a `Queryable`.
 */
export type SessionClient = Pick<pg.PoolClient, 'query'>;
