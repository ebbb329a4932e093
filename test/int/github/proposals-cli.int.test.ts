import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { githubReactorMigrations } from '../../../services/github/checkpoint.js';
import {
  APPROVAL_MODE_SET,
  APPROVAL_MODE_STREAM,
} from '../../../services/governance/approval-mode.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { cliEnv, lines, runCli, type CliResult } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  eventTypes,
  proposeAcceptance,
  proposeIntake,
  requestEvents,
  silentLogger,
} from './harness.js';

/**
 * Local approval mode through the real CLI (`node --import tsx bin/cogitave.ts proposals …`)
 * against a throwaway Postgres that the test fills through the real command handlers.
 */
let throwaway: ThrowawayDatabase;
let database: Database;
let eventStore: PostgresEventStore;
let handlers: RequestCommandHandlers;
let env: NodeJS.ProcessEnv;

/** No GitHub, whatever the developer's shell holds: empty values count as unset. */
const NO_GITHUB = {
  GITHUB_TOKEN: '',
  GITHUB_APP_ID: '',
  GITHUB_APP_PRIVATE_KEY: '',
  GITHUB_APP_INSTALLATION_ID: '',
  GITHUB_REPOSITORY: '',
  GITHUB_WEBHOOK_SECRET: '',
  GITHUB_API_URL: '',
  GITHUB_BASE_BRANCH: '',
};

const expectExit = (result: CliResult, code: number): void => {
  expect(result.code, `exit code\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);
};

const cli = (...args: string[]): Promise<CliResult> => runCli(['proposals', ...args], env, 60_000);

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('cli_proposals');
  database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 4,
    logger: silentLogger,
  });
  await migrate(database.pool, [eventStoreMigrations, githubReactorMigrations], silentLogger);
  eventStore = createPostgresEventStore({ database, logger: silentLogger, pollIntervalMs: 200 });
  handlers = createRequestCommandHandlers({ eventStore });
  env = cliEnv({ ...NO_GITHUB, DATABASE_URL: throwaway.url });
});

afterAll(async () => {
  await eventStore.close();
  await database.close();
  await throwaway.drop();
});

describe('cogitave proposals (local approval mode)', () => {
  let first: { requestId: string; proposalId: string };
  let second: { requestId: string; proposalId: string };

  it('given no proposals, when listed, then it says so', async () => {
    const result = await cli('list');

    expectExit(result, 0);
    expect(result.stdout).toBe('no pending proposals\n');
  });

  it('given two pending proposals, when listed, then each shows request, proposal, from → to, proposer and evidence', async () => {
    for (const n of [1, 2]) {
      const requestId = await proposeIntake(handlers, n);
      const proposalId = await proposeAcceptance(handlers, requestId);
      if (n === 1) first = { requestId, proposalId };
      else second = { requestId, proposalId };
    }

    const text = await cli('list');
    const json = await cli('list', '--json');

    expectExit(text, 0);
    expect(lines(text.stdout)).toEqual([
      `${first.requestId}  ${first.proposalId}  proposed → accepted  by agent:alpha  evidence: criteria 1/2, notes  "Export the audit log as CSV, batch 1"`,
      `${second.requestId}  ${second.proposalId}  proposed → accepted  by agent:alpha  evidence: criteria 1/2, notes  "Export the audit log as CSV, batch 2"`,
    ]);
    expectExit(json, 0);
    expect(lines(json.stdout).map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({
        ...first,
        fromStage: 'proposed',
        toStage: 'accepted',
        proposedBy: 'agent:alpha',
      }),
      expect.objectContaining({ ...second, fromStage: 'proposed', toStage: 'accepted' }),
    ]);
  });

  it('given a pending proposal, when a maintainer approves it, then the request advances via local and it leaves the list', async () => {
    const result = await cli('approve', first.proposalId, '--as', 'grace');

    expectExit(result, 0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^approved ${first.proposalId} as grace: proposed → accepted \\(request ${first.requestId} at revision \\d+\\)\\n$`,
      ),
    );
    const events = await requestEvents({ eventStore }, first.requestId);
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      [
        'StageAdvanceApproved',
        {
          requestId: first.requestId,
          proposalId: first.proposalId,
          approvedBy: 'grace',
          via: 'local',
          mergeCommitSha: null,
        },
      ],
      [
        'StageAdvanced',
        {
          requestId: first.requestId,
          proposalId: first.proposalId,
          fromStage: 'proposed',
          toStage: 'accepted',
        },
      ],
    ]);
    expect(events.at(-1)?.metadata.actor).toBe('maintainer:grace');
    expect((await cli('list')).stdout).not.toContain(first.proposalId);
  });

  it('given a pending proposal, when a maintainer rejects it with a reason, then it is rejected via local and the stage stays', async () => {
    const result = await cli(
      'reject',
      second.proposalId,
      '--as',
      'grace',
      '--reason',
      'needs a product owner first',
    );

    expectExit(result, 0);
    expect(result.stdout).toContain(`rejected ${second.proposalId} as grace`);
    expect((await requestEvents({ eventStore }, second.requestId)).at(-1)).toMatchObject({
      type: 'StageAdvanceRejected',
      data: {
        proposalId: second.proposalId,
        rejectedBy: 'grace',
        via: 'local',
        reason: 'needs a product owner first',
      },
    });
    expect((await cli('list')).stdout).toBe('no pending proposals\n');
  });

  it('given refused decisions, when run, then each fails with a message and appends nothing', async () => {
    const requestId = await proposeIntake(handlers, 3, 'agent:gamma');
    const proposalId = await proposeAcceptance(handlers, requestId, 'agent:gamma');
    const before = await eventTypes({ eventStore }, requestId);

    const ownApproval = await cli('approve', proposalId, '--as', 'agent:gamma');
    const decided = await cli('approve', first.proposalId, '--as', 'grace');
    const unknown = await cli('approve', `${requestId}-p9`, '--as', 'grace');
    const malformed = await cli('approve', 'not-a-proposal', '--as', 'grace');
    const noMaintainer = await cli('approve', proposalId);
    const noReason = await cli('reject', proposalId, '--as', 'grace');

    expectExit(ownApproval, 77);
    expect(ownApproval.stderr).toContain('another maintainer must approve it (four eyes)');
    expectExit(decided, 65);
    expect(decided.stderr).toContain(
      `Proposal ${first.proposalId} was already approved; nothing changed`,
    );
    expectExit(unknown, 66);
    expectExit(malformed, 2);
    expect(malformed.stderr).toContain('is not a proposal id');
    expectExit(noMaintainer, 2);
    expect(noMaintainer.stderr).toContain("required option '--as <maintainer>'");
    expectExit(noReason, 2);
    expect(await eventTypes({ eventStore }, requestId)).toEqual(before);
  });

  it("given the CLI's own environment has GitHub credentials on a deployment without a recorded mode, when a maintainer approves locally, then it is refused: merges decide", async () => {
    const requestId = await proposeIntake(handlers, 4);
    const proposalId = await proposeAcceptance(handlers, requestId);
    const github = cliEnv({
      ...NO_GITHUB,
      DATABASE_URL: throwaway.url,
      GITHUB_TOKEN: 'ghp_never_printed_token',
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_WEBHOOK_SECRET: 'never-printed-secret',
      GITHUB_API_URL: 'http://127.0.0.1:9',
    });

    const result = await runCli(
      ['proposals', 'approve', proposalId, '--as', 'grace'],
      github,
      60_000,
    );

    expectExit(result, 65);
    expect(result.stderr).toContain('This deployment approves on GitHub');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(
      /ghp_never_printed_token|never-printed-secret/,
    );
    expect(await eventTypes({ eventStore }, requestId)).not.toContain('StageAdvanceApproved');
  });

  it("given the deployment's recorded mode is github, when the CLI runs without GitHub credentials, then local approval is refused until a maintainer sets the mode to local, which is recorded", async () => {
    const requestId = await proposeIntake(handlers, 5);
    const proposalId = await proposeAcceptance(handlers, requestId);

    const setGithub = await runCli(
      ['approval-mode', 'set', 'github', '--as', 'grace', '--reason', 'moving to pull requests'],
      env,
      60_000,
    );
    const refused = await cli('approve', proposalId, '--as', 'grace');
    const setLocal = await runCli(['approval-mode', 'set', 'local', '--as', 'grace'], env, 60_000);
    const approved = await cli('approve', proposalId, '--as', 'grace');

    expectExit(setGithub, 0);
    expect(setGithub.stdout).toMatch(/^approval mode is now github, set by grace at /);
    expectExit(refused, 65);
    expect(refused.stderr).toContain('its approval mode is github (set by grace at');
    expect(refused.stderr).toContain('cogitave approval-mode set local --as <maintainer>');
    expectExit(setLocal, 0);
    expectExit(approved, 0);
    const modes = await eventStore.readStream(APPROVAL_MODE_STREAM);
    expect(modes.map((e) => [e.type, e.data, e.metadata.actor])).toEqual([
      [
        APPROVAL_MODE_SET,
        {
          mode: 'github',
          previous: null,
          setBy: 'grace',
          reason: 'moving to pull requests',
          repository: null,
        },
        'maintainer:grace',
      ],
      [
        APPROVAL_MODE_SET,
        {
          mode: 'local',
          previous: 'github',
          setBy: 'grace',
          reason: 'set by grace',
          repository: null,
        },
        'maintainer:grace',
      ],
    ]);
  });

  it('given principals name maintainers, when someone else approves or changes the mode, then it is refused', async () => {
    const requestId = await proposeIntake(handlers, 6, 'token:ada-agent');
    const proposalId = await proposeAcceptance(handlers, requestId, 'token:ada-agent');
    const withPrincipals = cliEnv({
      ...NO_GITHUB,
      DATABASE_URL: throwaway.url,
      COGITAVE_PRINCIPALS: JSON.stringify({
        ada: { tokens: ['ada-agent'], github: ['ada-lovelace'], maintainer: true },
        grace: { github: ['grace'], maintainer: true },
      }),
    });
    const run = (...args: string[]) => runCli(args, withPrincipals, 60_000);

    const notMaintainer = await run('proposals', 'approve', proposalId, '--as', 'mallory');
    const ownByLogin = await run('proposals', 'approve', proposalId, '--as', 'ada-lovelace');
    const modeByOutsider = await run('approval-mode', 'set', 'github', '--as', 'mallory');
    const withdrawByOutsider = await run(
      'requests',
      'withdraw',
      requestId,
      '--as',
      'mallory',
      '--reason',
      'Not mine to end.',
    );

    expectExit(withdrawByOutsider, 77);
    expect(withdrawByOutsider.stderr).toContain('cannot withdraw a request');
    expectExit(notMaintainer, 77);
    expect(notMaintainer.stderr).toContain('is not a maintainer; maintainers are ada, grace');
    expectExit(ownByLogin, 77);
    expect(ownByLogin.stderr).toContain('principal ada');
    expectExit(modeByOutsider, 77);
    expect(await eventTypes({ eventStore }, requestId)).not.toContain('StageAdvanceApproved');
    expect(await eventTypes({ eventStore }, requestId)).not.toContain('RequestWithdrawn');
  });

  it('given --help, when read, then it says the commands are local-only and never exposed over MCP', async () => {
    const help = await runCli(['proposals', '--help'], env);
    const approveHelp = await runCli(['proposals', 'approve', '--help'], env);

    expectExit(help, 0);
    expect(help.stdout).toContain('Never exposed over MCP');
    expect(approveHelp.stdout).toContain('Never exposed over MCP');
    expect(approveHelp.stdout).toContain('--as <maintainer>');
  });
});

describe('cogitave requests (a maintainer decides directly, local approval mode)', () => {
  const requests = (...args: string[]): Promise<CliResult> =>
    runCli(['requests', ...args], env, 60_000);

  it('given a draft, when a maintainer rejects its intake, then IntakeRejected via local and the request is rejected', async () => {
    const requestId = await proposeIntake(handlers, 5);

    const result = await requests(
      'reject-intake',
      requestId,
      '--as',
      'grace',
      '--reason',
      'Out of scope.',
    );

    expectExit(result, 0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^rejected the intake of ${requestId} as grace: proposed → rejected \\(request ${requestId} at revision 1\\)\\n$`,
      ),
    );
    const last = (await requestEvents({ eventStore }, requestId)).at(-1);
    expect(last).toMatchObject({
      type: 'IntakeRejected',
      data: { requestId, rejectedBy: 'grace', via: 'local', reason: 'Out of scope.' },
    });
    expect(last?.metadata.actor).toBe('maintainer:grace');
  });

  it('given an accepted request with a pending proposal, when a maintainer withdraws it, then RequestWithdrawn via local and the proposal leaves the list', async () => {
    const requestId = await proposeIntake(handlers, 6);
    await handlers.approveProposal(
      {
        requestId,
        proposalId: await proposeAcceptance(handlers, requestId),
        decidedBy: 'grace',
        via: 'local',
      },
      { commandId: crypto.randomUUID(), actor: 'maintainer:grace', at: new Date().toISOString() },
    );
    const pending = await handlers.proposeStageAdvance(
      {
        requestId,
        toStage: 'deferred',
        evidence: {},
        rationale: 'Waiting for the audit roadmap to settle.',
      },
      { commandId: crypto.randomUUID(), actor: 'agent:alpha', at: new Date().toISOString() },
    );

    const result = await requests('withdraw', requestId, '--as', 'grace', '--reason', 'Duplicate.');

    expectExit(result, 0);
    expect(result.stdout).toContain(`withdrew ${requestId} as grace: accepted → withdrawn`);
    expect((await requestEvents({ eventStore }, requestId)).at(-1)).toMatchObject({
      type: 'RequestWithdrawn',
      data: { requestId, withdrawnBy: 'grace', via: 'local', reason: 'Duplicate.' },
    });
    expect((await cli('list')).stdout).not.toContain(pending.proposalId);
  });

  it('given refused decisions, when run, then each exits with its code and appends nothing', async () => {
    const requestId = await proposeIntake(handlers, 7);
    await requests('withdraw', requestId, '--as', 'grace', '--reason', 'Gone.');
    const before = await eventTypes({ eventStore }, requestId);

    const again = await requests('withdraw', requestId, '--as', 'grace', '--reason', 'Gone.');
    const rejectClosed = await requests(
      'reject-intake',
      requestId,
      '--as',
      'grace',
      '--reason',
      'x',
    );
    const unknown = await requests('withdraw', 'req-2026-9999', '--as', 'grace', '--reason', 'x');
    const malformed = await requests('withdraw', 'REQ-1', '--as', 'grace', '--reason', 'x');
    const noReason = await requests('reject-intake', requestId, '--as', 'grace');

    expectExit(again, 65);
    expect(again.stderr).toContain(`Request ${requestId} is already withdrawn`);
    expectExit(rejectClosed, 65);
    expectExit(unknown, 66);
    expect(unknown.stderr).toContain('No request req-2026-9999');
    expectExit(malformed, 2);
    expect(malformed.stderr).toContain('is not a request id');
    expectExit(noReason, 2);
    expect(await eventTypes({ eventStore }, requestId)).toEqual(before);
  });

  it('given an accepted request, when a maintainer rejects its intake, then it is refused: only a draft is', async () => {
    const requestId = await proposeIntake(handlers, 8);
    await cli('approve', await proposeAcceptance(handlers, requestId), '--as', 'grace');

    const result = await requests('reject-intake', requestId, '--as', 'grace', '--reason', 'Late.');

    expectExit(result, 65);
    expect(result.stderr).toContain('"rejected" cannot be reached from "accepted"');
  });
});
