import { randomBytes } from 'node:crypto';
import { startGitHubDouble, type GitHubDouble } from '../support/github-double/index.js';
import { startBalancer, type Balancer } from './balancer.js';
import { createMaintainer, type Maintainer } from './maintainer.js';
import { startServe, type ServeProcess, type StartedServe } from './processes.js';

/**
 * The production topology on one machine: N gateway processes, one projector and one reactor
 * (`cogitave serve --role …`), all on one server Postgres. Without GitHub credentials in the
 * environment the reactor talks to a local GitHub API double, and a `maintainer` merges or
 * closes pull requests there and delivers the signed webhooks, so the whole loop runs locally.
 */
export interface TopologyOptions {
  readonly databaseUrl: string;
  /** Gateway processes (default 2). */
  readonly gateways?: number;
  /**
   * The environment every process starts from (the product's settings: LOG_LEVEL, MCP_TOKENS,
   * GITHUB_*, …). DATABASE_URL, COGITAVE_HTTP_PORT and, in double mode, GITHUB_* are set here.
   */
  readonly env: NodeJS.ProcessEnv;
  /**
   * First port: gateways at port+1…port+N, the projector next, then the reactor; the sticky
   * balancer (if any) on `port` itself. 0 (the default) picks free ports everywhere.
   */
  readonly port?: number;
  readonly host?: string;
  /** Start the sticky load balancer in front of the gateways (default false). */
  readonly balancer?: boolean;
  readonly onLine?: (name: string, line: string) => void;
  readonly readyTimeoutMs?: number;
}

export interface GitHubLoop {
  readonly mode: 'double' | 'github';
  readonly repository: string;
  /** Double mode only: the local GitHub API and its maintainer. */
  readonly double: GitHubDouble | undefined;
  readonly maintainer: Maintainer | undefined;
}

export interface Topology {
  readonly gateways: readonly StartedServe[];
  readonly projector: StartedServe;
  readonly reactor: StartedServe;
  readonly balancer: Balancer | undefined;
  readonly github: GitHubLoop;
  readonly processes: readonly ServeProcess[];
  /** Stops the gateways first, then the reactor and the projector, then the double. */
  stop(): Promise<void>;
}

export const DOUBLE_OWNER = 'acme';
export const DOUBLE_REPO = 'widgets';

const hasGitHubCredentials = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.GITHUB_TOKEN) || Boolean(env.GITHUB_APP_ID);

export const startTopology = async (options: TopologyOptions): Promise<Topology> => {
  const count = options.gateways ?? 2;
  if (!Number.isInteger(count) || count < 1 || count > 16) {
    throw new Error(`gateways: expected a whole number from 1 to 16, got ${String(count)}`);
  }
  const host = options.host ?? '127.0.0.1';
  const base = options.port ?? 0;
  const portAt = (offset: number): string => (base === 0 ? '0' : String(base + offset));

  let double: GitHubDouble | undefined;
  let githubEnv: Record<string, string> = {};
  if (!hasGitHubCredentials(options.env)) {
    double = await startGitHubDouble();
    double.createRepository(DOUBLE_OWNER, DOUBLE_REPO);
    githubEnv = {
      GITHUB_TOKEN: `topology-${randomBytes(8).toString('hex')}`,
      GITHUB_REPOSITORY: `${DOUBLE_OWNER}/${DOUBLE_REPO}`,
      GITHUB_WEBHOOK_SECRET: randomBytes(16).toString('hex'),
      GITHUB_API_URL: double.url,
      GITHUB_BASE_BRANCH: '',
      GITHUB_APP_ID: '',
      GITHUB_APP_PRIVATE_KEY: '',
      GITHUB_APP_INSTALLATION_ID: '',
    };
  }
  const env = (port: string): NodeJS.ProcessEnv => ({
    ...options.env,
    ...githubEnv,
    DATABASE_URL: options.databaseUrl,
    COGITAVE_HTTP_HOST: host,
    COGITAVE_HTTP_PORT: port,
  });
  const common = {
    ...(options.onLine ? { onLine: options.onLine } : {}),
    ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
  };
  const starting = [
    ...Array.from({ length: count }, (_, i) =>
      startServe({
        name: `gateway-${String(i + 1)}`,
        role: 'gateway',
        env: env(portAt(i + 1)),
        ...common,
      }),
    ),
    startServe({ name: 'projector', role: 'projector', env: env(portAt(count + 1)), ...common }),
    startServe({ name: 'reactor', role: 'reactor', env: env(portAt(count + 2)), ...common }),
  ];
  const results = await Promise.allSettled(starting);
  const started = results.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((entry) => entry.process.stop()));
    await double?.close();
    throw failed.reason;
  }
  const gateways = started.slice(0, count);
  const projector = started[count]!;
  const reactor = started[count + 1]!;
  const balancer = options.balancer
    ? await startBalancer({ host, port: base, backends: gateways.map((g) => g.url) })
    : undefined;
  const repository = githubEnv.GITHUB_REPOSITORY ?? options.env.GITHUB_REPOSITORY ?? '';
  const maintainer = double
    ? createMaintainer({
        double,
        owner: DOUBLE_OWNER,
        repo: DOUBLE_REPO,
        secret: githubEnv.GITHUB_WEBHOOK_SECRET!,
        gatewayUrl: () => gateways[0]!.url,
      })
    : undefined;
  const processes = started.map((entry) => entry.process);
  let stopping: Promise<void> | undefined;
  return {
    gateways,
    projector,
    reactor,
    balancer,
    github: { mode: double ? 'double' : 'github', repository, double, maintainer },
    processes,
    stop: () =>
      (stopping ??= (async () => {
        await balancer?.close();
        await Promise.all(gateways.map((g) => g.process.stop()));
        await Promise.all([reactor.process.stop(), projector.process.stop()]);
        await double?.close();
      })()),
  };
};
