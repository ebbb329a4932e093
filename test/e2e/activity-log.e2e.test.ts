import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../mcp-gateway/auth/tokens.js';
import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import { cliEnv, spawnCli, stopCli, type RunningCli } from '../support/cli.js';
import { startGitHubDouble, type GitHubDouble } from '../support/github-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  eventTypes,
  requestEvents,
  silentLogger,
  waitFor,
} from '../int/github/harness.js';
import { tokenTable } from './gateway/support.js';

/**
 * The activity log of a token-mode `cogitave serve`, read from its JSON stderr: one line per
 * proposal, decision, refused call, GitHub delivery and ingest, with the documented fields
 * (docs/activity-log.md), and no token, token hash or webhook secret anywhere in the log.
 */
const AGENT = 'activity-agent-token-3f9a1c';
const READER = 'activity-reader-token-7b2e4d';
const MAINTAINER = 'activity-maintainer-token-c81d05';
const SECRET = 'activity-webhook-secret-never-logged';
const GITHUB_TOKEN = 'ghp_activity_e2e_token_never_logged';
const TOKENS = tokenTable({
  [AGENT]: { name: 'agent', grants: { propose: true } },
  [READER]: { name: 'reader', grants: {} },
  [MAINTAINER]: { name: 'maintainer', grants: { propose: true, decide: true } },
});
const SECRETS = [AGENT, READER, MAINTAINER, SECRET, GITHUB_TOKEN];
const SERVE_TIMEOUT_MS = 90_000;

const intakeArgs = (suffix: string) => ({
  title: `Export audit trails as CSV (${suffix})`,
  problem: 'Auditors copy history by hand today, which takes hours per request and loses rows.',
  product: 'core',
  requester: 'audit-team',
  acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
});
const acceptance = (requestId: string) => ({
  request_id: requestId,
  to_stage: 'accepted',
  evidence: {},
  rationale: 'The problem is real and the acceptance criterion is measurable.',
});

const connectAgent = async (mcpUrl: string, token: string): Promise<Client> => {
  const client = new Client({ name: 'activity-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

const callTool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, ...(result.structuredContent ?? {}) } as Record<
    string,
    unknown
  >;
};

/** A JSON-RPC POST to /mcp, as a client without the SDK sends it. */
const postMcp = (mcpUrl: string, body: unknown, headers: Record<string, string>) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });

const activities = (running: RunningCli, kind: string): Record<string, unknown>[] =>
  running.logs().filter((line) => line.activity === kind);

/** No secret, nor the sha256 that the token table keys, reaches the log. */
const expectNoSecrets = (stderr: string): void => {
  for (const secret of SECRETS) {
    expect(stderr).not.toContain(secret);
    expect(stderr).not.toContain(hashToken(secret));
  }
};

const serveEnv = (databaseUrl: string, extra: Record<string, string>) =>
  cliEnv({
    DATABASE_URL: databaseUrl,
    COGITAVE_HTTP_PORT: '0',
    COGITAVE_POLL_INTERVAL_MS: '100',
    LOG_LEVEL: 'info',
    MCP_TOKENS: TOKENS,
    ...extra,
  });

describe('the activity log of a token-mode serve (local approval)', () => {
  let throwaway: ThrowawayDatabase;
  let served: RunningCli | undefined;
  const corpus = mkdtempSync(join(tmpdir(), 'cogitave-activity-corpus-'));

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('activity_local');
    writeFileSync(join(corpus, 'index.md'), '# Release notes\n\nHow we release.\n');
    writeFileSync(join(corpus, 'setup.md'), '# Setup\n\nInstall it.\n');
  });
  afterAll(async () => {
    await stopCli(served);
    await throwaway.drop();
    rmSync(corpus, { recursive: true, force: true });
  });

  it('given an intake, a 401, a 403, a proposal refused and one approved in the console, then one line each with its fields and no secret', async () => {
    served = spawnCli(['serve'], serveEnv(throwaway.url, { CATALOG_DIR: corpus }));
    const ready = await served.waitForLog(
      (line) => line.msg === 'cogitave ready',
      SERVE_TIMEOUT_MS,
    );
    const url = ready.url as string;
    const mcpUrl = `${url}/mcp`;

    // The start-up ingest of the folder: one line with the source and its counts.
    expect(activities(served, 'ingest')).toEqual([
      expect.objectContaining({ level: 30, added: 2, changed: 0, removed: 0, outcome: 'ingested' }),
    ]);
    expect(activities(served, 'ingest')[0]?.source).toEqual(expect.any(String));

    const agent = await connectAgent(mcpUrl, AGENT);
    const intake = await callTool(agent, 'request_intake', intakeArgs('activity'));
    const requestId = intake.request_id as string;
    expect(requestId).toMatch(/^req-/);

    // No token: 401; a token without the propose grant: 403 insufficient_scope.
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'request_intake', arguments: intakeArgs('denied') },
    };
    expect((await postMcp(mcpUrl, call, {})).status).toBe(401);
    expect((await postMcp(mcpUrl, call, { authorization: `Bearer ${READER}` })).status).toBe(403);

    const proposed = await callTool(agent, 'advance_stage', acceptance(requestId));
    const proposalId = (proposed.proposal as { proposal_id: string }).proposal_id;
    // A second proposal while the first waits is refused by the lifecycle.
    expect((await callTool(agent, 'advance_stage', acceptance(requestId))).isError).toBe(true);
    await agent.close();

    // The maintainer approves in the console: token login, then the form with its CSRF token.
    const login = await fetch(`${url}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: new URLSearchParams({ token: MAINTAINER }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (
      await fetch(`${url}/console/requests/${requestId}`, { headers: { cookie } })
    ).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const approved = await fetch(
      `${url}/console/requests/${requestId}/proposals/${proposalId}/approve`,
      {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url, cookie },
        body: new URLSearchParams({ csrf }).toString(),
      },
    );
    expect(approved.status).toBe(303);

    await waitFor(() => activities(served!, 'decision').length > 0, 10_000, 'the decision line');
    served.child.kill('SIGTERM');
    const exit = await served.exited;
    expect(exit.code).toBe(0);

    expect(activities(served, 'proposal')).toEqual([
      expect.objectContaining({
        level: 30,
        actor: 'token:agent',
        token: 'agent',
        request: requestId,
        stage: 'proposed',
        outcome: 'proposed',
      }),
      expect.objectContaining({
        token: 'agent',
        request: requestId,
        proposal: proposalId,
        from: 'proposed',
        stage: 'accepted',
        outcome: 'proposed',
      }),
      expect.objectContaining({
        token: 'agent',
        tool: 'advance_stage',
        request: requestId,
        stage: 'accepted',
        outcome: 'rejected',
        reason: expect.stringMatching(/^[A-Z_]+$/) as unknown,
      }),
    ]);
    expect(activities(served, 'refused')).toEqual([
      expect.objectContaining({
        route: '/mcp',
        method: 'POST',
        status: 401,
        reason: 'missing_token',
      }),
      expect.objectContaining({
        route: '/mcp',
        status: 403,
        actor: 'token:reader',
        token: 'reader',
        reason: 'insufficient_scope',
        scope: 'propose',
      }),
    ]);
    expect(activities(served, 'refused')[0]).not.toHaveProperty('token');
    expect(activities(served, 'decision')).toEqual([
      expect.objectContaining({
        actor: 'token:maintainer',
        token: 'maintainer',
        decision: 'approve',
        via: 'console',
        request: requestId,
        proposal: proposalId,
        stage: 'accepted',
        outcome: 'approved',
      }),
    ]);
    expect(activities(served, 'webhook')).toEqual([]);
    expectNoSecrets(exit.stderr);
  });
});

describe('the activity log of a token-mode serve (GitHub approval)', () => {
  let throwaway: ThrowawayDatabase;
  let database: Database;
  let eventStore: PostgresEventStore;
  let double: GitHubDouble;
  let served: RunningCli | undefined;

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('activity_github');
    database = await openDatabase({
      databaseUrl: throwaway.url,
      dataDir: '',
      poolSize: 2,
      logger: silentLogger,
    });
    await migrate(database.pool, [eventStoreMigrations], silentLogger);
    eventStore = createPostgresEventStore({ database, logger: silentLogger, pollIntervalMs: 100 });
    double = await startGitHubDouble();
    double.createRepository(OWNER, REPO);
  });
  afterAll(async () => {
    await stopCli(served);
    await double.close();
    await eventStore.close();
    await database.close();
    await throwaway.drop();
  });

  it('given a signed delivery that rejects an intake and one with a wrong signature, then a webhook line each, one decision via github, and no refused line for the delivery', async () => {
    served = spawnCli(
      ['serve'],
      serveEnv(throwaway.url, {
        GITHUB_TOKEN,
        GITHUB_REPOSITORY: REPOSITORY,
        GITHUB_WEBHOOK_SECRET: SECRET,
        GITHUB_API_URL: double.url,
        GITHUB_BASE_BRANCH: '',
        GITHUB_APP_ID: '',
        GITHUB_APP_PRIVATE_KEY: '',
        GITHUB_APP_INSTALLATION_ID: '',
      }),
    );
    const ready = await served.waitForLog(
      (line) => line.msg === 'cogitave ready',
      SERVE_TIMEOUT_MS,
    );
    const url = ready.url as string;
    const agent = await connectAgent(`${url}/mcp`, AGENT);
    const requestId = (await callTool(agent, 'request_intake', intakeArgs('github')))
      .request_id as string;
    await agent.close();
    await waitFor(
      async () => (await eventTypes({ eventStore }, requestId)).includes('IntakeIssueOpened'),
      60_000,
      'serve to open the intake issue',
    );
    const issueNumber = (
      (await requestEvents({ eventStore }, requestId)).find((e) => e.type === 'IntakeIssueOpened')!
        .data as { issueNumber: number }
    ).issueNumber;
    double.closeIssue(OWNER, REPO, issueNumber, { stateReason: 'not_planned', closedBy: 'grace' });
    const body = JSON.stringify({
      action: 'closed',
      issue: double.getIssue(OWNER, REPO, issueNumber),
      repository: double.getRepository(OWNER, REPO),
      sender: double.user('grace'),
    });
    const deliveries = { applied: randomUUID(), forged: randomUUID() };
    const deliver = (delivery: string, signature: string) =>
      fetch(`${url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': delivery,
          'x-hub-signature-256': signature,
        },
        body,
      });
    const forged = await new Webhooks({ secret: 'not-the-secret' }).sign(body);
    expect((await deliver(deliveries.forged, forged)).status).toBe(401);
    const signed = await new Webhooks({ secret: SECRET }).sign(body);
    expect((await deliver(deliveries.applied, signed)).status).toBe(200);

    served.child.kill('SIGTERM');
    const exit = await served.exited;
    expect(exit.code).toBe(0);

    expect(activities(served, 'webhook')).toEqual([
      expect.objectContaining({
        event: 'issues',
        delivery: deliveries.forged,
        status: 401,
        outcome: 'refused',
        reason: 'bad_signature',
      }),
      expect.objectContaining({
        event: 'issues',
        delivery: deliveries.applied,
        action: 'closed',
        status: 200,
        outcome: 'applied',
        request: requestId,
      }),
    ]);
    expect(activities(served, 'webhook')[0]).not.toHaveProperty('action');
    expect(activities(served, 'decision')).toEqual([
      expect.objectContaining({
        decision: 'reject-intake',
        by: 'grace',
        via: 'github',
        request: requestId,
        outcome: 'rejected',
      }),
    ]);
    expect(activities(served, 'proposal')).toEqual([
      expect.objectContaining({ token: 'agent', request: requestId, outcome: 'proposed' }),
    ]);
    // The delivery's refusal is its webhook line, not also a refused call.
    expect(activities(served, 'refused')).toEqual([]);
    expectNoSecrets(exit.stderr);
  });
});
