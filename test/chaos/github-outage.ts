import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { markerIn } from '../../services/github/markers.js';
import { cliEnv, repoRoot, stopCli } from '../support/cli.js';
import { startGitHubDouble, type GitHubDouble } from '../support/github-double/index.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import {
  closeQuietly,
  connectClient,
  intakeArgs,
  sleep,
  startServe,
  textOf,
  until,
  type ConnectedClient,
  type ServeProcess,
  type ToolResultLike,
} from './support.js';

/**
 * GitHub is down (every call answers 503 or drops the connection) while agents propose: the
 * proposals still stage (events appended, drafts readable through MCP). When GitHub is back the
 * reactor catches up with exactly one issue per intake and one draft pull request per stage
 * proposal. Used by the chaos test (seconds) and the soak script (a minute).
 *
 * The gateway is `cogitave serve --http` in local-approval composition; the reactor runs in its
 * own process (`test/e2e/github/reactor-process.ts`: the product's reactor with test timings and
 * no write spacing), as a reactor-only process would in production.
 */
const OWNER = 'acme';
const REPO = 'widgets';

export interface OutageOptions {
  readonly outageMs: number;
  readonly intakes: number;
  /** How many of the intakes also get a stage proposal (a draft pull request). */
  readonly stageProposals: number;
  readonly log?: (line: string) => void;
}

export interface OutageReport {
  readonly requestIds: readonly string[];
  readonly proposalIds: readonly string[];
  readonly faultedCalls: number;
  readonly issues: number;
  readonly pullRequests: number;
  readonly writes: Readonly<Record<string, number>>;
  readonly catchUpMs: number;
  readonly violations: readonly unknown[];
  /** Event types per request stream, oldest first. */
  readonly streams: Readonly<Record<string, readonly string[]>>;
  /** What an agent read through MCP for each draft while GitHub was down. */
  readonly draftsDuringOutage: readonly { requestId: string; stage: unknown; status: unknown }[];
  /** Issue markers of the double, one per issue. */
  readonly issueMarkers: readonly (string | undefined)[];
  readonly pullHeads: readonly string[];
}

export interface ReactorRun {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
  stderr(): string;
}

export const startReactor = (databaseUrl: string, apiUrl: string): ReactorRun => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/github/reactor-process.ts'], {
    cwd: repoRoot,
    env: cliEnv({
      DATABASE_URL: databaseUrl,
      GITHUB_API_URL: apiUrl,
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, exited, stderr: () => stderr };
};

const streamTypes = async (
  db: pg.Client,
  requestIds: readonly string[],
): Promise<Record<string, string[]>> => {
  const rows = await db.query<{ stream_id: string; event_type: string }>(
    `SELECT stream_id, event_type FROM event_store.events WHERE stream_id = ANY($1)
      ORDER BY stream_id, stream_revision`,
    [requestIds.map((id) => `request-${id}`)],
  );
  const streams: Record<string, string[]> = Object.fromEntries(requestIds.map((id) => [id, []]));
  for (const row of rows.rows)
    streams[row.stream_id.slice('request-'.length)]?.push(row.event_type);
  return streams;
};

export const runGitHubOutage = async (options: OutageOptions): Promise<OutageReport> => {
  const log = options.log ?? (() => undefined);
  const throwaway = await createThrowawayDatabase('chaos_github');
  let double: GitHubDouble | undefined;
  let gateway: ServeProcess | undefined;
  let reactor: ReactorRun | undefined;
  let client: ConnectedClient | undefined;
  const db = new pg.Client({ connectionString: throwaway.url });
  try {
    double = await startGitHubDouble();
    double.createRepository(OWNER, REPO);
    gateway = await startServe(throwaway.url);
    await db.connect();

    // GitHub goes down before anything is proposed.
    const stopFaults = double.faults.random({
      probability: 1,
      kinds: ['error-before-write', 'timeout'],
      status: 503,
      ms: 200,
    });
    const outageStarted = Date.now();
    reactor = startReactor(throwaway.url, double.url);
    client = await connectClient(gateway.mcpUrl, 'chaos-github');

    const requestIds: string[] = [];
    const draftsDuringOutage: { requestId: string; stage: unknown; status: unknown }[] = [];
    for (let index = 0; index < options.intakes; index += 1) {
      const result = (await client.client.callTool({
        name: 'request_intake',
        arguments: intakeArgs(`github-${String(index)}`),
      })) as ToolResultLike;
      if (result.isError) throw new Error(`request_intake failed: ${textOf(result)}`);
      requestIds.push(result.structuredContent?.request_id as string);
    }
    const proposalIds: string[] = [];
    for (const requestId of requestIds.slice(0, options.stageProposals)) {
      const result = (await client.client.callTool({
        name: 'advance_stage',
        arguments: {
          request_id: requestId,
          to_stage: 'accepted',
          evidence: {},
          rationale: 'The problem is real and the acceptance criterion is measurable.',
        },
      })) as ToolResultLike;
      if (result.isError) throw new Error(`advance_stage failed: ${textOf(result)}`);
      const proposal = result.structuredContent?.proposal as { proposal_id: string } | undefined;
      if (!proposal) throw new Error(`advance_stage returned no proposal: ${textOf(result)}`);
      proposalIds.push(proposal.proposal_id);
    }
    for (const requestId of requestIds) {
      const result = (await client.client.callTool({
        name: 'get_request',
        arguments: { request_id: requestId },
      })) as ToolResultLike;
      if (result.isError) throw new Error(`get_request failed: ${textOf(result)}`);
      const request = (result.structuredContent?.request ?? result.structuredContent) as
        Record<string, unknown> | undefined;
      draftsDuringOutage.push({ requestId, stage: request?.stage, status: request?.status });
    }
    log(
      `proposed ${String(requestIds.length)} intakes, ${String(proposalIds.length)} stage proposals while GitHub is down`,
    );

    const left = options.outageMs - (Date.now() - outageStarted);
    if (left > 0) await sleep(left);
    const duringOutage = await streamTypes(db, requestIds);
    const faultedCalls = Object.values(double.stats.faults).reduce((sum, n) => sum + n, 0);
    if (double.listIssues(OWNER, REPO).length > 0)
      throw new Error('an issue was opened while GitHub was down');
    for (const [id, types] of Object.entries(duringOutage)) {
      if (types.includes('IntakeIssueOpened'))
        throw new Error(`${id} recorded an issue during the outage`);
    }
    log(
      `GitHub back after ${String(Date.now() - outageStarted)} ms (${String(faultedCalls)} calls faulted)`,
    );

    stopFaults();
    const back = Date.now();
    const github = double;
    await until(
      async () => {
        const streams = await streamTypes(db, requestIds);
        return requestIds.every((id, index) => {
          const types = streams[id] ?? [];
          return (
            types.includes('IntakeIssueOpened') &&
            (index >= proposalIds.length || types.includes('ProposalPullRequestOpened'))
          );
        });
      },
      `the reactor to catch up\n${reactor.stderr().slice(-3000)}`,
      120_000,
      200,
    );
    const catchUpMs = Date.now() - back;
    // A little longer: a twin would show up now if the reactor were to make one.
    await sleep(1000);
    log(`caught up in ${String(catchUpMs)} ms`);

    const issues = github.listIssues(OWNER, REPO);
    const pulls = github.listPullRequests(OWNER, REPO);
    return {
      requestIds,
      proposalIds,
      faultedCalls,
      issues: issues.length,
      pullRequests: pulls.length,
      writes: { ...github.stats.writes },
      catchUpMs,
      violations: [...github.violations],
      streams: await streamTypes(db, requestIds),
      draftsDuringOutage,
      issueMarkers: issues.map((issue) => markerIn(issue.body, 'request')),
      pullHeads: pulls.map((pull) => pull.head.ref),
    };
  } finally {
    await closeQuietly(client);
    if (reactor && reactor.child.exitCode === null) {
      reactor.child.kill('SIGKILL');
      await reactor.exited;
    }
    await stopCli(gateway?.running);
    await db.end().catch(() => undefined);
    await double?.close();
    await throwaway.drop();
  }
};
