import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { githubReactorMigrations } from '../../../services/github/checkpoint.js';
import { markerIn } from '../../../services/github/markers.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { cliEnv, repoRoot } from '../../support/cli.js';
import {
  startGitHubDouble,
  type GitHubDouble,
  type WriteEvent,
} from '../../support/github-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  eventTypes,
  proposeAcceptance,
  proposeIntake,
  silentLogger,
  waitFor,
} from '../../int/github/harness.js';

/**
 * The reactor in a child process, SIGKILLed by the double's write listener right after GitHub
 * performed a write and before the answer (so before the reactor could append anything). A
 * restarted reactor must find what the dead one made: still exactly one issue and one pull
 * request, each recorded once.
 */
let throwaway: ThrowawayDatabase;
let database: Database;
let eventStore: PostgresEventStore;
let handlers: RequestCommandHandlers;
let double: GitHubDouble;
let child: ChildProcess | undefined;

interface Run {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const startReactor = (): Run => {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/github/reactor-process.ts'], {
    cwd: repoRoot,
    env: cliEnv({
      DATABASE_URL: throwaway.url,
      GITHUB_API_URL: double.url,
      GITHUB_REPOSITORY: REPOSITORY,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child = proc;
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  return { child: proc, exited, stderr: () => stderr };
};

/** Runs the reactor until the double performs `operation`, and SIGKILLs it right there. */
const killAtWrite = async (operation: string): Promise<WriteEvent> => {
  const run = startReactor();
  let seen: WriteEvent | undefined;
  const unsubscribe = double.onWrite(async (event) => {
    if (seen || event.operation !== operation) return;
    seen = event;
    // The answer waits for this promise: the reactor dies with the write done, unanswered.
    run.child.kill('SIGKILL');
    await run.exited;
  });
  try {
    const exit = await Promise.race([
      run.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => {
          reject(new Error(`no ${operation} write within 60 s\n${run.stderr()}`));
        }, 60_000),
      ),
    ]);
    expect(exit.signal, run.stderr()).toBe('SIGKILL');
  } finally {
    unsubscribe();
  }
  return seen!;
};

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('github_crash');
  database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 4,
    logger: silentLogger,
  });
  await migrate(database.pool, [eventStoreMigrations, githubReactorMigrations], silentLogger);
  eventStore = createPostgresEventStore({ database, logger: silentLogger, pollIntervalMs: 100 });
  handlers = createRequestCommandHandlers({ eventStore });
  double = await startGitHubDouble();
  double.createRepository(OWNER, REPO);
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await double.close();
  await eventStore.close();
  await database.close();
  await throwaway.drop();
});

describe('GitHub reactor killed mid-write', () => {
  it('given the reactor is SIGKILLed after each GitHub write before recording it, when it restarts, then there is still exactly one issue and one pull request, each recorded once', async () => {
    const requestId = await proposeIntake(handlers, 1);
    const proposalId = await proposeAcceptance(handlers, requestId);

    // 1. Killed right after the issue was created.
    const issueWrite = await killAtWrite('issues/create');
    expect(double.listIssues(OWNER, REPO)).toHaveLength(1);
    expect(await eventTypes({ eventStore }, requestId)).not.toContain('IntakeIssueOpened');

    // 2-4. Restarted, it finds the issue and records it; killed after the branch, then after
    // the file commit, then after the pull request was opened.
    for (const operation of [
      'git/create-ref',
      'repos/create-or-update-file-contents',
      'pulls/create',
    ]) {
      await killAtWrite(operation);
    }
    expect(double.listPullRequests(OWNER, REPO)).toHaveLength(1);
    expect(await eventTypes({ eventStore }, requestId)).not.toContain('ProposalPullRequestOpened');

    // 5. Restarted once more and left alone: it records the pull request it finds.
    const run = startReactor();
    await waitFor(
      async () =>
        (await eventTypes({ eventStore }, requestId)).includes('ProposalPullRequestOpened'),
      60_000,
      'the restarted reactor to record the pull request',
    );
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);

    const issues = double.listIssues(OWNER, REPO);
    const pulls = double.listPullRequests(OWNER, REPO);
    expect(issues).toHaveLength(1);
    expect(pulls).toHaveLength(1);
    expect(markerIn(issues[0]!.body, 'request')).toBe(requestId);
    expect((issueWrite.resource as { number: number }).number).toBe(issues[0]!.number);
    expect(pulls[0]).toMatchObject({ draft: true, head: { ref: `cogitave/${proposalId}` } });
    expect(double.stats.writes['issues/create']).toBe(1);
    expect(double.stats.writes['pulls/create']).toBe(1);
    expect(double.stats.writes['git/create-ref']).toBe(1);
    expect(double.stats.writes['repos/create-or-update-file-contents']).toBe(1);
    expect(await eventTypes({ eventStore }, requestId)).toEqual([
      'RequestProposed',
      'StageAdvanceProposed',
      'IntakeIssueOpened',
      'ProposalPullRequestOpened',
    ]);
    expect(double.violations).toEqual([]);
  });
});
