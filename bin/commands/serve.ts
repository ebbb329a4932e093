import { Command, Option } from 'commander';
import { assertPortFree } from '../../mcp-gateway/http/port.js';
import { httpSettingsFromConfig, startHttpServer } from '../../mcp-gateway/http/server.js';
import { serveMcpSocket } from '../../mcp-gateway/socket.js';
import { startStdio } from '../../mcp-gateway/stdio.js';
import { createApp, type App } from '../app.js';
import { cliCommand } from '../package-info.js';
import { githubSettingsFromConfig } from '../../services/github/index.js';
import { loadConfig } from '../../services/runtime/config.js';
import type { Logger } from '../../services/runtime/logger.js';
import { commandLine, commandLogger } from './context.js';
import { attachToServingOwner } from './serve/attach.js';
import { composeRole, type ServedRole } from './serve/compose.js';
import { untilSignal } from './serve/ops.js';
import { preflight } from './serve/preflight.js';
import { ROLE_HELP, ROLES, type Role } from './serve/roles.js';

interface ServeFlags {
  readonly role: Role;
  readonly stdio: boolean;
  readonly http: boolean;
}

export const serveCommand = new Command('serve')
  .description(
    'Start Cogitave Core: connect the database (embedded PGlite unless DATABASE_URL is set), migrate, and serve until SIGINT/SIGTERM. The default role (all) runs everything in one process and serves MCP over HTTP at /mcp (beside /healthz, /readyz, /metrics) or over stdio (--stdio); the gateway, projector and reactor roles split the product across processes sharing one server Postgres.',
  )
  .addOption(new Option('--role <role>', ROLE_HELP).choices(ROLES).default('all'))
  .addOption(
    new Option('--stdio', 'serve MCP over stdin/stdout for a local client (logs go to stderr)')
      .default(false)
      .conflicts('http'),
  )
  .addOption(new Option('--http', 'serve over HTTP (the default)').default(false))
  .action(async (flags: ServeFlags) => {
    const config = loadConfig();
    // The same checks as `cogitave config`: a refused setting is one line and exit 78 (69).
    const { tokens, auth } = await preflight(config, flags);
    const logger = commandLogger(config, false);
    // Another serve owns the embedded folder: this stdio session is served by it.
    if (flags.stdio && (await attachToServingOwner(config, logger))) return;
    // A taken port is said at once, not after opening and migrating the database.
    if (!flags.stdio) await assertPortFree(config.httpHost, config.httpPort);
    const app = await createApp(config, logger, { mustOwn: true, command: commandLine() });
    // The deployment's approval mode lives in its log: the first start records it, a process
    // configured otherwise refuses to run (cogitave approval-mode set changes it).
    const mode = await app.governance.adoptConfiguredMode().catch(async (error: unknown) => {
      await app.close();
      throw error;
    });
    logger.info({ approvalMode: mode.mode, setBy: mode.setBy }, 'approval mode');
    const served = await composeRole(app, flags.role, {
      auth,
      authLabel: auth.enabled ? `${String(Object.keys(tokens).length)} bearer tokens` : 'local',
      stdio: flags.stdio,
    }).catch(async (error: unknown) => {
      await app.close();
      throw error;
    });
    // Owning an embedded folder, serve also MCP on its socket, for serve --stdio elsewhere.
    const mcpSocket = await serveMcpSocket(app.database, served.gateway, logger);
    const stop = async (): Promise<void> => {
      await mcpSocket?.close();
      await served.close();
      await app.close();
    };
    if (flags.stdio) await serveStdio(flags.role, served, logger, stop);
    else await serveHttp(flags.role, app, served, logger, stop);
  });

const serveStdio = async (
  role: Role,
  served: ServedRole,
  logger: Logger,
  stop: () => Promise<void>,
): Promise<void> => {
  // assertRoleFits allows --stdio only for roles with a gateway.
  if (!served.gateway) throw new Error(`role ${role} has no MCP gateway`);
  served.start();
  const stdio = startStdio(served.gateway, logger);
  await untilStarted(served, logger);
  logger.info({ role, transport: 'stdio', ...served.describe }, 'cogitave ready');
  await Promise.race([stdio.ended, untilSignal(logger)]);
  await stdio.close();
  await stop();
};

const serveHttp = async (
  role: Role,
  app: App,
  served: ServedRole,
  logger: Logger,
  stop: () => Promise<void>,
): Promise<void> => {
  let http;
  try {
    http = await startHttpServer({
      ...httpSettingsFromConfig(app.config),
      logger,
      readiness: served.readiness,
      ...(served.projections ? { projections: served.projections } : {}),
      ...(served.metrics ? { metrics: served.metrics } : {}),
      routes: served.routes,
    });
  } catch (error) {
    await served.drain();
    await stop();
    throw error;
  }
  served.start();
  await untilStarted(served, logger);
  logger.info(
    {
      role,
      url: http.url,
      ...(served.gateway ? { mcp: `${http.url}/mcp` } : {}),
      ...served.describe,
      ...served.announce?.(http.urls),
      ...(served.gateway ? { next: nextSteps(`${http.url}/mcp`, app) } : {}),
    },
    'cogitave ready',
  );
  await untilSignal(logger);
  await served.drain();
  await http.close();
  await stop();
};

/** What a person who just started the server does next: connect a client, decide proposals. */
const nextSteps = (mcpUrl: string, app: App): string[] => {
  const github = githubSettingsFromConfig(app.config);
  // The command as this process was started (installed binary, build or sources), so the hint
  // names the quickest way to run the CLI here.
  const cli = cliCommand(process.argv[1], process.cwd());
  return [
    `Connect an MCP client to ${mcpUrl}, e.g. claude mcp add --transport http cogitave ${mcpUrl} (README: Connect an MCP client).`,
    github
      ? `Approve a proposal by merging its draft pull request on ${github.repository}; close it to reject.`
      : `Approve what agents propose from another terminal: ${cli} proposals list, then ${cli} proposals approve <proposalId> --as <your name>.`,
  ];
};

/**
 * "ready" means the tools can answer: the catalog is ingested and the search index built.
 * Meanwhile /readyz answers 503 naming what is still starting; a part that cannot finish is
 * logged and the process serves what it has.
 */
const untilStarted = async (served: ServedRole, logger: Logger): Promise<void> => {
  try {
    await served.started?.();
  } catch (error) {
    logger.warn({ err: error }, 'start-up did not finish; serving what is ready');
  }
};
