import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../mcp-gateway/tools/index.js';
import { cliEnv, repoRoot, runCli, sourceEntry } from '../support/cli.js';
import { startGitHubDouble, type GitHubDouble } from '../support/github-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import { startServe, type StartedServe } from '../topology/processes.js';
import { eventually } from './gateway/support.js';

/**
 * `cogitave serve --role gateway|projector|reactor` as separate processes on one Postgres:
 * each runs only its part, reports only what it needs in /readyz, and together they make the
 * product (a gateway alone records proposals but applies no read model and opens nothing on
 * GitHub; the projector and the reactor do that from their own processes).
 */
const OWNER = 'acme';
const REPO = 'widgets';

let db: ThrowawayDatabase;
let admin: pg.Pool;
let double: GitHubDouble;
const started: StartedServe[] = [];

const roleEnv = (): NodeJS.ProcessEnv =>
  cliEnv({
    DATABASE_URL: db.url,
    COGITAVE_HTTP_PORT: '0',
    COGITAVE_POLL_INTERVAL_MS: '100',
    GITHUB_TOKEN: 'ghp_roles_e2e',
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_WEBHOOK_SECRET: 'roles-e2e-secret',
    GITHUB_API_URL: double.url,
    GITHUB_BASE_BRANCH: '',
    GITHUB_APP_ID: '',
    GITHUB_APP_PRIVATE_KEY: '',
    GITHUB_APP_INSTALLATION_ID: '',
  });

const serve = async (role: 'gateway' | 'projector' | 'reactor'): Promise<StartedServe> => {
  const entry = await startServe({ name: role, role, env: roleEnv(), readyTimeoutMs: 60_000 });
  started.push(entry);
  return entry;
};

const status = async (url: string, init?: RequestInit): Promise<number> =>
  (await fetch(url, init)).status;

const readyz = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(`${url}/readyz`)).json()) as Record<string, unknown>;

/** The request ids `list_requests` shows for a product, once the projector has applied `id`. */
const listedOnceApplied = async (
  client: Client,
  product: string,
  id: string,
): Promise<string[]> => {
  const listed = async (): Promise<string[]> => {
    const result = (await client.callTool({
      name: 'list_requests',
      arguments: { product },
    })) as { structuredContent?: { results: { request_id: string }[] } };
    return (result.structuredContent?.results ?? []).map((row) => row.request_id);
  };
  const deadline = Date.now() + 20_000;
  let ids = await listed();
  while (!ids.includes(id) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    ids = await listed();
  }
  return ids;
};

beforeAll(async () => {
  db = await createThrowawayDatabase('roles_e2e');
  admin = new pg.Pool({ connectionString: db.url, max: 2 });
  double = await startGitHubDouble();
  double.createRepository(OWNER, REPO);
});

afterAll(async () => {
  await Promise.all(started.map((entry) => entry.process.stop(2000)));
  await admin.end();
  await double.close();
  await db.drop();
});

describe('serve roles that cannot work are refused before anything opens', () => {
  it('given no DATABASE_URL, when a split role starts, then it exits 78 naming DATABASE_URL and creates no embedded database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-roles-'));
    try {
      const gateway = await runCli(
        ['serve', '--role', 'gateway'],
        cliEnv({ COGITAVE_DATA_DIR: dataDir }),
      );
      expect(gateway.code).toBe(78);
      expect(gateway.stderr).toContain(
        'DATABASE_URL: serve --role gateway needs a server Postgres',
      );
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a gateway, a projector and a reactor in three processes', () => {
  it('given a gateway alone, when an agent proposes an intake, then it is recorded but no read model or GitHub issue follows until the projector and the reactor start, each serving only its part', async () => {
    const gateway = await serve('gateway');
    expect(gateway.ready).toMatchObject({
      role: 'gateway',
      database: 'postgres',
      tools: ALL_TOOLS.length,
    });
    expect(await readyz(gateway.url)).toEqual({
      status: 'ready',
      checks: [
        { name: 'database', ok: true },
        { name: 'search', ok: true },
        { name: 'change-feed', ok: true },
      ],
    });
    // The webhook receiver is mounted (an unsigned delivery is refused, not missing).
    expect(
      await status(`${gateway.url}/webhooks/github`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    ).toBe(401);
    expect(await status(`${gateway.url}/llms.txt`)).toBe(200);

    const client = new Client({ name: 'roles-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    try {
      const intake = (await client.callTool({
        name: 'request_intake',
        arguments: {
          title: 'Export audit trails as CSV (roles)',
          problem: 'Auditors copy history by hand today, which takes hours and loses rows.',
          product: 'core',
          requester: 'audit-team',
          acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
        },
      })) as { isError?: boolean; structuredContent?: { request_id: string } };
      expect(intake.isError).toBeFalsy();
      const requestId = intake.structuredContent!.request_id;

      // Recorded in the log; the tool's read-your-writes wait has passed: still no read model.
      const count = async (sql: string): Promise<number> =>
        Number((await admin.query<{ n: string }>(sql)).rows[0]!.n);
      expect(
        await count(
          `SELECT count(*) AS n FROM event_store.events WHERE event_type = 'RequestProposed'`,
        ),
      ).toBe(1);
      expect(await count('SELECT count(*) AS n FROM read_model.requests')).toBe(0);
      expect(double.listIssues(OWNER, REPO)).toEqual([]);

      const [projector, reactor] = await Promise.all([serve('projector'), serve('reactor')]);

      // Each answers only its own endpoints.
      for (const other of [projector, reactor]) {
        expect(other.ready.mcp).toBeUndefined();
        expect(await status(`${other.url}/mcp`, { method: 'POST', body: '{}' })).toBe(404);
        expect(await status(`${other.url}/webhooks/github`, { method: 'POST' })).toBe(404);
        expect(await status(`${other.url}/llms.txt`)).toBe(404);
        expect(await status(`${other.url}/healthz`)).toBe(200);
      }
      expect(await readyz(reactor.url)).toEqual({
        status: 'ready',
        checks: [
          { name: 'database', ok: true },
          {
            name: 'github-reactor',
            ok: true,
            detail: expect.objectContaining({ failures: [], undecidedMerges: [] }) as unknown,
          },
        ],
      });
      // Each projection's lock is taken just after start: poll until the projector leads them all.
      let projectorReady = await readyz(projector.url);
      const leads = (): boolean =>
        (projectorReady.projections as { leader: boolean }[]).every((p) => p.leader);
      for (let tries = 0; !leads() && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        projectorReady = await readyz(projector.url);
      }
      expect(projectorReady.checks).toEqual([
        { name: 'database', ok: true },
        { name: 'catalog', ok: true },
      ]);
      const projections = projectorReady.projections as { name: string; leader: boolean }[];
      expect(projections.map((p) => p.name)).toEqual(
        expect.arrayContaining(['requests', 'networks', 'catalog']),
      );
      expect(leads()).toBe(true);

      // The projector applies the read model the gateway reads; the reactor opens the issue.
      await eventually(
        () => double.listIssues(OWNER, REPO).length === 1,
        'the intake issue',
        30_000,
      );
      expect(await listedOnceApplied(client, 'core', requestId)).toEqual([requestId]);
      expect(double.violations).toEqual([]);
    } finally {
      await client.close();
    }

    const exits = await Promise.all(started.map((entry) => entry.process.stop()));
    expect(exits).toEqual([0, 0, 0]);
    started.length = 0;
  });

  it('given a gateway role over stdio on the shared Postgres, when a local client lists and reads, then its proposals are recorded, the projector applies them, and its stdout carries only MCP', async () => {
    const projector = await serve('projector');
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...sourceEntry('bin/cogitave.ts'), 'serve', '--role', 'gateway', '--stdio'],
      cwd: repoRoot,
      env: roleEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'roles-e2e-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(ALL_TOOLS.length);
      // A proposal over stdio is recorded by this gateway and applied by the projector.
      const intake = (await client.callTool({
        name: 'request_intake',
        arguments: {
          title: 'Filter the audit trail by actor (stdio)',
          problem: 'Auditors scroll through every event to find one actor, which takes an hour.',
          product: 'audit',
          requester: 'audit-team',
          acceptance_criteria: ['Filtering 10000 events by actor takes under 1 second'],
        },
      })) as { isError?: boolean; structuredContent?: { request_id: string } };
      expect(intake.isError).toBeFalsy();
      const requestId = intake.structuredContent?.request_id;
      expect(await listedOnceApplied(client, 'audit', requestId ?? '')).toEqual([requestId]);
      // Logs went to stderr, and they say which role and transport this is. The ready line
      // comes once the search index is built, which may be after the first calls are answered.
      await eventually(
        () => /"role":"gateway".*"transport":"stdio"/.test(stderr.join('')),
        'the ready line naming the role and transport on stderr',
        30_000,
      );
    } finally {
      await client.close();
    }
    expect(await projector.process.stop()).toBe(0);
    started.length = 0;
  });
});
