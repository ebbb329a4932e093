import { randomUUID } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { cliEnv, spawnCli, stopCli, type RunningCli } from '../../support/cli.js';
import { startGitHubDouble, type GitHubDouble } from '../../support/github-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  eventTypes,
  proposeIntake,
  requestEvents,
  silentLogger,
  waitFor,
} from '../../int/github/harness.js';
import { PROJECTIONS } from '../../../bin/read-models.js';

/**
 * `cogitave serve` in GitHub mode, configured only through GITHUB_* variables pointing at the
 * double: the composition root starts the reactor (with GitHub's production write spacing),
 * mounts the webhook receiver and reports both in /readyz; no secret reaches the logs.
 */
const TOKEN = 'ghp_serve_e2e_token_never_logged';
const SECRET = 'serve-e2e-webhook-secret-never-logged';

let throwaway: ThrowawayDatabase;
let database: Database;
let eventStore: PostgresEventStore;
let handlers: RequestCommandHandlers;
let double: GitHubDouble;
let served: RunningCli | undefined;

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('github_serve');
  database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 4,
    logger: silentLogger,
  });
  await migrate(database.pool, [eventStoreMigrations], silentLogger);
  eventStore = createPostgresEventStore({ database, logger: silentLogger, pollIntervalMs: 100 });
  handlers = createRequestCommandHandlers({ eventStore });
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

describe('cogitave serve with GitHub configured', () => {
  it('given GITHUB_* settings, when serving, then intakes become issues, signed webhooks apply decisions, and secrets stay out of the logs', async () => {
    served = spawnCli(
      ['serve'],
      cliEnv({
        DATABASE_URL: throwaway.url,
        COGITAVE_HTTP_PORT: '0',
        COGITAVE_POLL_INTERVAL_MS: '100',
        LOG_LEVEL: 'debug',
        GITHUB_TOKEN: TOKEN,
        GITHUB_REPOSITORY: REPOSITORY,
        GITHUB_WEBHOOK_SECRET: SECRET,
        GITHUB_API_URL: double.url,
        GITHUB_BASE_BRANCH: '',
        GITHUB_APP_ID: '',
        GITHUB_APP_PRIVATE_KEY: '',
        GITHUB_APP_INSTALLATION_ID: '',
      }),
    );
    const ready = await served.waitForLog((line) => line.msg === 'cogitave ready', 90_000);
    expect(ready.approvals).toBe(`github ${REPOSITORY}`);
    const url = ready.url as string;

    const readiness = await fetch(`${url}/readyz`);
    expect(await readiness.json()).toEqual({
      status: 'ready',
      checks: [
        { name: 'database', ok: true },
        {
          name: 'github-reactor',
          ok: true,
          // What an operator must act on, listed without making the process unready.
          detail: expect.objectContaining({ failures: [], undecidedMerges: [] }) as unknown,
        },
        { name: 'search', ok: true },
        { name: 'catalog', ok: true },
      ],
      projections: PROJECTIONS.map(({ name }): unknown =>
        expect.objectContaining({ name, error: null }),
      ),
    });

    const requestId = await proposeIntake(handlers, 1);
    await waitFor(
      async () => (await eventTypes({ eventStore }, requestId)).includes('IntakeIssueOpened'),
      60_000,
      'serve to open and record the intake issue',
    );
    const issueNumber = (
      (await requestEvents({ eventStore }, requestId)).find((e) => e.type === 'IntakeIssueOpened')!
        .data as { issueNumber: number }
    ).issueNumber;
    expect(double.listIssues(OWNER, REPO).map((issue) => issue.number)).toEqual([issueNumber]);

    double.closeIssue(OWNER, REPO, issueNumber, { stateReason: 'not_planned', closedBy: 'grace' });
    const body = JSON.stringify({
      action: 'closed',
      issue: double.getIssue(OWNER, REPO, issueNumber),
      repository: double.getRepository(OWNER, REPO),
      sender: double.user('grace'),
    });
    const post = async (signature: string | undefined) =>
      fetch(`${url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': randomUUID(),
          ...(signature ? { 'x-hub-signature-256': signature } : {}),
        },
        body,
      });
    expect((await post(undefined)).status).toBe(401);
    const applied = await post(await new Webhooks({ secret: SECRET }).sign(body));
    expect(await applied.json()).toEqual({ status: 'applied', command: 'rejectIntake', requestId });
    expect((await eventTypes({ eventStore }, requestId)).at(-1)).toBe('IntakeRejected');

    served.child.kill('SIGTERM');
    const exit = await served.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).not.toContain(TOKEN);
    expect(exit.stderr).not.toContain(SECRET);
    expect(double.violations).toEqual([]);
  });
});
