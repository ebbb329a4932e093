import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, runCli, spawnCli, type CliResult, type RunningCli } from '../../support/cli.js';

/**
 * Shared by the embedded-default e2e tests: `cogitave serve` on a PGlite data folder, agents on
 * the official v1 SDK client, and what a test reads back through the owner with the CLI.
 */
export const READY_TIMEOUT_MS = 90_000;

export interface Owner {
  readonly running: RunningCli;
  readonly url: string;
}

/** A fresh folder for one test file: the data folder in it and the CLI environment for it. */
export const embeddedFolder = (
  prefix: string,
): { readonly root: string; readonly dataDir: string; readonly env: NodeJS.ProcessEnv } => {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(root, 'data');
  return {
    root,
    dataDir,
    env: cliEnv({
      COGITAVE_DATA_DIR: dataDir,
      COGITAVE_HTTP_PORT: '0',
      COGITAVE_POLL_INTERVAL_MS: '100',
    }),
  };
};

export const startOwner = async (env: NodeJS.ProcessEnv): Promise<Owner> => {
  const running = spawnCli(['serve'], env);
  const ready = await running.waitForLog((line) => line.msg === 'cogitave ready', READY_TIMEOUT_MS);
  return { running, url: ready.url as string };
};

export const connectAgent = async (url: string, name: string): Promise<Client> => {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
};

export interface ToolAnswer {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: unknown[];
}

/** A call whose server died under it fails within `timeoutMs` instead of the SDK's 60 s. */
export const callTool = async (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 15_000,
): Promise<ToolAnswer> =>
  (await client.callTool({ name, arguments: args }, undefined, {
    timeout: timeoutMs,
  })) as ToolAnswer;

/** One line on stderr per phase, so a slow or stuck run shows where it is. */
export const trace = (what: string): void => {
  if (process.env.TEST_TRACE !== undefined)
    process.stderr.write(`${new Date().toISOString()} ${what}\n`);
};

export const intakeArgs = (title: string) => ({
  title,
  problem: 'Auditors copy the history of requests by hand today, which takes hours.',
  product: 'core',
  requester: 'audit-team',
  acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
});

export const proposeAcceptance = (requestId: string) => ({
  request_id: requestId,
  to_stage: 'accepted',
  evidence: {},
  rationale: 'The problem is real and the acceptance criterion is measurable.',
});

export interface LoggedEvent {
  readonly streamId: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** Every event of the request streams, read through the owner (`events tail --no-follow`). */
export const readRequestEvents = async (env: NodeJS.ProcessEnv): Promise<LoggedEvent[]> => {
  const result = await runCli(
    ['events', 'tail', '--from-start', '--no-follow', '--json', '--stream-prefix', 'request-'],
    env,
    60_000,
  );
  if (result.code !== 0) throw new Error(`events tail failed: ${describe(result)}`);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedEvent);
};

export const describe = (result: CliResult): string =>
  `exit ${String(result.code)} (signal ${String(result.signal)})\nstdout:\n${result.stdout.slice(0, 2000)}\nstderr:\n${result.stderr.slice(0, 2000)}`;

/** `verify --json` and `replay --json` through the owner: the log is whole, live = replay. */
export const auditThroughOwner = async (
  env: NodeJS.ProcessEnv,
): Promise<{ verify: CliResult; replay: CliResult }> => {
  const [verify, replay] = await Promise.all([
    runCli(['verify', '--json'], env, 60_000),
    runCli(['replay', '--json'], env, 60_000),
  ]);
  return { verify, replay };
};
