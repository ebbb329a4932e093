import pg from 'pg';
import { configInvalid } from '../runtime/config.js';
import { CogitaveError, Unavailable } from '../runtime/errors.js';

/**
 * What a failed first connection to DATABASE_URL means for the person who set it: a database
 * or role that does not exist is a setting to fix (78), a server that does not answer is an
 * outage worth retrying (69). Messages name host:port and the database, never the password.
 */
const OUTAGE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
]);
// 57P03: the server is starting up or shutting down; 53300: too many connections.
const OUTAGE_SQLSTATE = /^(08|57P0[1-3]|53300)/;
const OUTAGE_MESSAGES = /timeout|Connection terminated/i;

interface Target {
  readonly where: string;
  readonly database: string;
  readonly user: string;
}

const targetOf = (url: string): Target => {
  const parsed = new URL(url);
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
  return {
    where: `${host}:${port}`,
    database,
    user: decodeURIComponent(parsed.username) || 'postgres',
  };
};

/** Node's happy-eyeballs connect reports an AggregateError whose parts carry the codes. */
const codesOf = (error: unknown): string[] => {
  if (typeof error !== 'object' || error === null) return [];
  const own = (error as { code?: unknown }).code;
  const parts = (error as { errors?: unknown }).errors;
  return [
    ...(typeof own === 'string' ? [own] : []),
    ...(Array.isArray(parts) ? parts.flatMap(codesOf) : []),
  ];
};

/**
 * The CogitaveError for an error raised while connecting to `url`, or undefined when it says
 * nothing about the connection (a bug, left to surface with its stack).
 */
export const describeConnectionFailure = (
  error: unknown,
  url: string,
): CogitaveError | undefined => {
  if (!(error instanceof Error)) return undefined;
  let target: Target;
  try {
    target = targetOf(url);
  } catch {
    return configInvalid([
      'DATABASE_URL: is not a valid URL; write it as postgres://user:password@host:port/database',
    ]);
  }
  const codes = codesOf(error);
  const options = { cause: error };
  const has = (code: string): boolean => codes.includes(code);
  if (has('3D000')) {
    return configInvalid(
      [
        `DATABASE_URL: database "${target.database}" does not exist on ${target.where}; create it (createdb ${target.database}) or point DATABASE_URL at an existing one`,
      ],
      {},
      options,
    );
  }
  if (has('28P01') || has('28000')) {
    return configInvalid(
      [
        `DATABASE_URL: ${target.where} refused user "${target.user}" (${error.message}); fix the user or password in DATABASE_URL`,
      ],
      {},
      options,
    );
  }
  if (has('ENOTFOUND')) {
    // A host name nobody resolves is as likely a typo as an outage: retrying may help (DNS,
    // a container not yet started), so 69, but the line says which host to check.
    return new Unavailable(
      `DATABASE_URL: the database host of ${target.where} does not resolve; check the host name in DATABASE_URL, or retry once it is up`,
      {},
      options,
    );
  }
  if (
    codes.some((code) => OUTAGE_NODE_CODES.has(code) || OUTAGE_SQLSTATE.test(code)) ||
    OUTAGE_MESSAGES.test(error.message)
  ) {
    return new Unavailable(
      `DATABASE_URL: no database server answers on ${target.where} (${codes[0] ?? error.message}); start it or check host and port in DATABASE_URL, then retry`,
      {},
      options,
    );
  }
  // The server answered but refused the session for another reason (SSL required or
  // unsupported, a parameter it rejects): a setting to change, said as the server said it.
  if (error instanceof pg.DatabaseError || /SSL|does not support/i.test(error.message)) {
    return configInvalid(
      [`DATABASE_URL: ${target.where} refused the connection (${error.message}); fix DATABASE_URL`],
      {},
      options,
    );
  }
  return undefined;
};

/** Opens one session to `url` and closes it: the database exists and lets us in. */
export const checkServerDatabase = async (url: string, timeoutMs = 10_000): Promise<void> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A session the server ends while we hold it must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw describeConnectionFailure(error, url) ?? error;
  } finally {
    await client.end().catch(() => undefined);
  }
};
