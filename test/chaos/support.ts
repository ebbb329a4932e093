import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliEnv, spawnCli, type RunningCli } from '../support/cli.js';

/**
 * Parts shared by the chaos tests: `cogitave serve --http` processes, v1 SDK clients (the real
 * 2025-11-25 client), intake arguments and small polling helpers.
 */
export const READY_TIMEOUT_MS = 60_000;

export interface ServeProcess {
  readonly running: RunningCli;
  readonly url: string;
  readonly mcpUrl: string;
}

export type ServeRole = 'all' | 'gateway' | 'projector' | 'reactor';

/**
 * Starts `cogitave serve --http --role <role>` on a free port against `databaseUrl`; resolves
 * once ready. Every role serves /healthz and /readyz; only `all` and `gateway` serve /mcp.
 */
export const startServe = async (
  databaseUrl: string,
  env: Record<string, string> = {},
  role: ServeRole = 'all',
): Promise<ServeProcess> => {
  const running = spawnCli(
    ['serve', '--http', '--role', role],
    cliEnv({
      DATABASE_URL: databaseUrl,
      COGITAVE_HTTP_PORT: '0',
      COGITAVE_POLL_INTERVAL_MS: '200',
      COGITAVE_DB_POOL_SIZE: '4',
      LOG_LEVEL: 'info',
      ...env,
    }),
  );
  const ready = await running.waitForLog((line) => line.msg === 'cogitave ready', READY_TIMEOUT_MS);
  const url = ready.url as string;
  return { running, url, mcpUrl: `${url}/mcp` };
};

export const isAlive = (serve: ServeProcess): boolean =>
  serve.running.child.exitCode === null && serve.running.child.signalCode === null;

export interface ConnectedClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

export const connectClient = async (mcpUrl: string, name: string): Promise<ConnectedClient> => {
  const client = new Client({ name, version: '1.0.0' });
  // The SDK's own SSE reconnection is left to its defaults; failover between processes is the
  // caller's job (a 2025-11-25 session cannot move to another process).
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
  await client.connect(transport);
  return { client, transport };
};

export const closeQuietly = async (connected: ConnectedClient | undefined): Promise<void> => {
  if (!connected) return;
  await connected.client.close().catch(() => undefined);
};

export const intakeArgs = (label: string) => ({
  title: `Chaos intake ${label} keeps its proposal`,
  problem: 'Operators lose proposals when the database restarts, which costs a day per incident.',
  product: 'core',
  requester: 'chaos-suite',
  acceptance_criteria: ['Every acknowledged proposal exists after 1 restart of the database'],
});

export interface ToolResultLike {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: readonly { type: string; text?: string }[];
}

export const textOf = (result: ToolResultLike): string =>
  (result.content ?? []).map((part) => part.text ?? '').join('\n');

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it resolves true; throws naming `what` after `timeoutMs`. */
export const until = async (
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
};

export const httpStatus = async (url: string): Promise<number> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
};
