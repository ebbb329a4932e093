import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, spawnCli, stopCli, type CliResult, type RunningCli } from '../support/cli.js';
import { adminUrl, createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';

/**
 * `cogitave serve` as an operator runs it: a child process that migrates, serves HTTP, logs
 * JSON on stderr and stops cleanly on a signal.
 */
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

interface Served {
  readonly running: RunningCli;
  readonly ready: Record<string, unknown>;
  readonly url: string;
}

const serve = async (env: NodeJS.ProcessEnv): Promise<Served> => {
  const running = spawnCli(['serve'], env);
  current = running;
  const ready = await running.waitForLog((line) => line.msg === 'cogitave ready', READY_TIMEOUT_MS);
  expect(typeof ready.url).toBe('string');
  return { running, ready, url: ready.url as string };
};

/** Sends `signal` and resolves with the exit, failing if it takes longer than STOP_TIMEOUT_MS. */
const stop = async (running: RunningCli, signal: NodeJS.Signals): Promise<CliResult> => {
  running.child.kill(signal);
  return Promise.race([
    running.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => {
        reject(new Error(`serve did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}`));
      }, STOP_TIMEOUT_MS),
    ),
  ]);
};

const getJson = async (
  url: string,
  init?: RequestInit,
): Promise<{ status: number; type: string | null; allow: string | null; body: unknown }> => {
  const response = await fetch(url, init);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    allow: response.headers.get('allow'),
    body: await response.json(),
  };
};

/** The serve process of the running test; whatever happens, it does not outlive its describe. */
let current: RunningCli | undefined;

describe('cogitave serve on the embedded default (PGlite)', () => {
  afterEach(async () => {
    await stopCli(current);
    current = undefined;
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-serve-'));
  const env = cliEnv({ COGITAVE_DATA_DIR: dataDir, COGITAVE_HTTP_PORT: '0' });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('given no DATABASE_URL and an empty data dir, when served, then it migrates, becomes ready, answers the ops endpoints and exits 0 on SIGTERM', async () => {
    const { running, ready, url } = await serve(env);

    expect(ready).toMatchObject({
      database: 'pglite',
      eventStore: 'pglite',
      location: dataDir,
      role: 'all',
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.logs().filter((line) => line.msg === 'migration applied')).not.toHaveLength(0);

    const health = await getJson(`${url}/healthz`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.type).toContain('application/json');

    const readiness = await getJson(`${url}/readyz`);
    expect(readiness).toMatchObject({
      status: 200,
      body: {
        status: 'ready',
        checks: [
          { name: 'database', ok: true },
          { name: 'search', ok: true },
          { name: 'catalog', ok: true },
        ],
      },
    });

    const missing = await getJson(`${url}/no/such/path?x=1`);
    expect(missing.status).toBe(404);
    expect(missing.type).toContain('application/problem+json');
    expect(missing.body).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No route for /no/such/path; try /healthz or /readyz.',
      instance: '/no/such/path',
    });

    const wrongMethod = await getJson(`${url}/healthz`, { method: 'POST', body: '{}' });
    expect(wrongMethod).toMatchObject({
      status: 405,
      allow: 'GET, HEAD, OPTIONS',
      body: { status: 405, title: 'Method Not Allowed' },
    });
    expect(wrongMethod.type).toContain('application/problem+json');

    const head = await fetch(`${url}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);

    // The ready line carries the console's one-time login link (local mode): it opens the
    // sign-in form, while the console itself sends a visitor without a login there.
    expect(ready.console).toMatch(new RegExp(`^${url}/console/login\\?code=[\\w-]{20,}$`));
    const login = await fetch(ready.console as string);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('name="code"');
    const board = await fetch(`${url}/console/`, { redirect: 'manual' });
    expect(board.status).toBe(303);
    expect(board.headers.get('location')).toBe('/console/login');

    const exit = await stop(running, 'SIGTERM');
    expect(exit.code).toBe(0);
    expect(exit.stdout).toBe('');
    expect(running.logs().map((line) => line.msg)).toContain('shutting down');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('given the data dir of the previous run, when served again, then it starts without applying migrations and is ready', async () => {
    const { running, ready, url } = await serve(env);

    expect(ready).toMatchObject({ database: 'pglite', location: dataDir });
    expect(running.logs().filter((line) => line.msg === 'migration applied')).toEqual([]);
    expect((await getJson(`${url}/readyz`)).status).toBe(200);

    const exit = await stop(running, 'SIGTERM');
    expect(exit.code).toBe(0);
  });
});

describe('cogitave serve on server Postgres', () => {
  let throwaway: ThrowawayDatabase;
  let databaseName: string;
  const setConnections = async (allow: boolean): Promise<void> => {
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${databaseName} WITH ALLOW_CONNECTIONS ${allow}`);
      if (!allow) {
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [databaseName],
        );
      }
    } finally {
      await admin.end();
    }
  };

  let served: Served;

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('serve');
    databaseName = new URL(throwaway.url).pathname.slice(1);
    served = await serve(cliEnv({ DATABASE_URL: throwaway.url, COGITAVE_HTTP_PORT: '0' }));
  });
  afterAll(async () => {
    await stopCli(current);
    current = undefined;
    await throwaway.drop();
  });

  it('given DATABASE_URL, when served, then it migrates the server database and is ready on Postgres', async () => {
    expect(served.ready).toMatchObject({ database: 'postgres', eventStore: 'postgres' });
    expect(served.ready.location).toContain(`/${databaseName}`);
    expect(
      served.running.logs().filter((line) => line.msg === 'migration applied'),
    ).not.toHaveLength(0);
    expect(await getJson(`${served.url}/readyz`)).toMatchObject({
      status: 200,
      body: {
        status: 'ready',
        checks: [
          { name: 'database', ok: true },
          { name: 'search', ok: true },
          { name: 'catalog', ok: true },
        ],
      },
    });
  });

  it('given the database stops accepting connections, when /readyz is asked, then it answers 503 while /healthz stays 200, and 200 again once the database is back', async () => {
    await setConnections(false);
    try {
      const down = await getJson(`${served.url}/readyz`);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'not ready', checks: [{ ok: false }, {}, {}] });
      expect((down.body as { checks: { detail?: string }[] }).checks[0]?.detail).toContain(
        'not currently accepting connections',
      );
      expect((await getJson(`${served.url}/healthz`)).status).toBe(200);
    } finally {
      await setConnections(true);
    }
    expect((await getJson(`${served.url}/readyz`)).status).toBe(200);
  });

  // Product bug: when a readiness check throws, the HTTP server replaces its result with
  // { name: 'check' }, so the 503 body no longer says which dependency is down.
  it('given the database stops accepting connections, when /readyz is asked, then the failing check is still named "database"', async () => {
    await setConnections(false);
    try {
      const down = await getJson(`${served.url}/readyz`);
      expect(down.body).toMatchObject({ checks: [{ name: 'database', ok: false }, {}, {}] });
    } finally {
      await setConnections(true);
    }
  });

  it('given a running server, when sent SIGINT, then it exits 0 within a few seconds', async () => {
    const exit = await stop(served.running, 'SIGINT');

    expect(exit.code).toBe(0);
    expect(served.running.logs().find((line) => line.msg === 'shutting down')).toMatchObject({
      signal: 'SIGINT',
    });
  });
});
