import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import { startTopology, type Topology } from './topology.js';

/**
 * `npm run topology -- [--gateways N] [--port P] [--no-balancer] [--keep-database] [--verbose]`
 *
 * The production topology locally: N gateways, one projector, one reactor on one Postgres
 * (DATABASE_URL, or a fresh database on 127.0.0.1 that is dropped on exit), a sticky load
 * balancer on --port, and — without GITHUB_* credentials — a GitHub API double with a
 * maintainer console on stdin. Ctrl-C stops everything.
 */
const USAGE =
  'usage: npm run topology -- [--gateways N (1-16, default 2)] [--port P (default 3100)] [--no-balancer] [--keep-database] [--verbose]';

const { values } = parseArgs({
  options: {
    gateways: { type: 'string', default: '2' },
    port: { type: 'string', default: '3100' },
    'no-balancer': { type: 'boolean', default: false },
    'keep-database': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const gateways = Number(values.gateways);
const port = Number(values.port);
if (!/^\d+$/.test(values.gateways) || gateways < 1 || gateways > 16) {
  process.stderr.write(`--gateways: expected a whole number from 1 to 16\n${USAGE}\n`);
  process.exit(2);
}
if (!/^\d+$/.test(values.port) || port < 1024 || port > 65_000) {
  process.stderr.write(`--port: expected a port from 1024 to 65000\n${USAGE}\n`);
  process.exit(2);
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Warnings, errors and the ready lines reach the terminal; --verbose shows every log line. */
const forward = (name: string, line: string): void => {
  let level = 50;
  let msg = line;
  try {
    const parsed = JSON.parse(line) as { level?: number; msg?: string };
    level = parsed.level ?? 30;
    msg = parsed.msg ?? line;
  } catch {
    // Not JSON (a stack trace, a commander message): show it.
  }
  if (values.verbose || level >= 40)
    process.stderr.write(`[${name}] ${values.verbose ? line : msg}\n`);
};

let throwaway: ThrowawayDatabase | undefined;
const databaseUrl =
  process.env.DATABASE_URL ?? (throwaway = await createThrowawayDatabase('topology')).url;

let topology: Topology;
try {
  topology = await startTopology({
    databaseUrl,
    gateways,
    port,
    balancer: !values['no-balancer'],
    env: {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? (values.verbose ? 'debug' : 'info'),
    },
    onLine: forward,
  });
} catch (error) {
  process.stderr.write(`topology did not start: ${(error as Error).message}\n`);
  if (throwaway && !values['keep-database']) await throwaway.drop();
  process.exit(1);
}

const { github } = topology;
out('');
out(
  `Cogitave Core topology (database ${new URL(databaseUrl).pathname.slice(1)} on ${new URL(databaseUrl).host})`,
);
if (topology.balancer)
  out(`  balancer    ${topology.balancer.url}/mcp   (sticky on Mcp-Session-Id)`);
for (const [i, gateway] of topology.gateways.entries()) {
  out(
    `  gateway-${String(i + 1)}   ${gateway.url}/mcp   ${gateway.url}/llms.txt   ${gateway.url}/readyz`,
  );
}
out(`  projector   ${topology.projector.url}/readyz   ${topology.projector.url}/metrics`);
out(`  reactor     ${topology.reactor.url}/readyz`);
if (github.mode === 'double') {
  out(`  GitHub      API double at ${github.double!.url} (repository ${github.repository})`);
  out(`  webhooks    ${topology.gateways[0]!.url}/webhooks/github`);
  out('');
  out('Maintainer console: "prs" lists pull requests, "issues" lists issues,');
  out('"merge <n> [login]" merges a pull request, "close <n> [login]" closes it unmerged.');
} else {
  out(`  GitHub      ${github.repository} (point its webhook at a gateway's /webhooks/github)`);
}
out('Ctrl-C stops everything.');
out('');

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  out(`\n${signal}: stopping gateways, reactor, projector…`);
  await topology.stop();
  if (throwaway && !values['keep-database']) {
    await throwaway.drop();
    out('dropped the topology database');
  }
  out('stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
for (const served of topology.processes) {
  void served.exited.then((code) => {
    if (!stopping) process.stderr.write(`[${served.name}] exited with code ${String(code)}\n`);
  });
}

if (github.mode === 'double' && github.double && github.maintainer) {
  const { double, maintainer } = github;
  const [owner, repo] = github.repository.split('/') as [string, string];
  createInterface({ input: process.stdin }).on('line', (input) => {
    const [command, number, login] = input.trim().split(/\s+/);
    const run = async (): Promise<void> => {
      if (command === 'prs') {
        for (const pull of double.listPullRequests(owner, repo)) {
          out(
            `#${String(pull.number)} ${pull.state}${pull.draft ? ' draft' : ''}${pull.merged_at ? ' merged' : ''}  ${pull.title}`,
          );
        }
      } else if (command === 'issues') {
        for (const issue of double.listIssues(owner, repo)) {
          out(`#${String(issue.number)} ${issue.state}  ${issue.title}`);
        }
      } else if ((command === 'merge' || command === 'close') && /^\d+$/.test(number ?? '')) {
        const answer = await maintainer[command](Number(number), login);
        out(`webhook ${String(answer.status)} ${JSON.stringify(answer.body)}`);
      } else if (command) {
        out('commands: prs | issues | merge <n> [login] | close <n> [login]');
      }
    };
    run().catch((error: unknown) => {
      out(`error: ${(error as Error).message}`);
    });
  });
}
