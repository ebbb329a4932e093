import { Command, Option } from 'commander';
import { startHttpServer } from '../../mcp-gateway/http/server.js';
import type { Database } from '../../services/database/database.js';
import { createApp } from '../../services/runtime/app.js';
import { loadConfig } from '../../services/runtime/config.js';
import { commandLogger } from './context.js';

const ROLES = ['all'] as const;

// The server ended this session (pg_terminate_backend, a restart): it says nothing yet about
// whether the database answers now.
const STALE_CONNECTION = /Connection terminated|Client has encountered a connection error/i;
const isStaleConnection = (error: unknown): boolean =>
  error instanceof Error &&
  (['57P01', '57P02'].includes(String((error as { code?: unknown }).code)) ||
    STALE_CONNECTION.test(error.message));

/**
 * Whether the database answers. An idle pooled connection the server has just ended fails its
 * next query before the pool notices, so that failure is retried (the pool drops the broken
 * client) and only an answer from a live connection counts.
 */
const pingDatabase = async (database: Database): Promise<boolean> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await database.pool.query('SELECT 1 AS ok')).rowCount === 1;
    } catch (error) {
      if (attempt >= 10 || !isStaleConnection(error)) throw error;
    }
  }
};

export const serveCommand = new Command('serve')
  .description(
    'Start Cogitave Core: connect the database (embedded PGlite unless DATABASE_URL is set), migrate, and serve HTTP until SIGINT/SIGTERM.',
  )
  .addOption(
    new Option('--role <role>', 'which part of the product this process runs')
      .choices(ROLES)
      .default('all'),
  )
  .action(async (flags: { role: (typeof ROLES)[number] }) => {
    const config = loadConfig();
    const logger = commandLogger(config, false);
    const app = await createApp(config, logger);
    const { github, projections } = app;
    let http;
    try {
      http = await startHttpServer({
        host: config.httpHost,
        port: config.httpPort,
        logger,
        readiness: [
          { name: 'database', probe: () => pingDatabase(app.database) },
          // Ready while the reactor runs (retrying GitHub included: the gateway still serves);
          // not ready once it has stopped for good.
          ...(github
            ? [
                {
                  name: 'github-reactor',
                  probe: () => Promise.resolve(github.reactor.status().state !== 'stopped'),
                },
              ]
            : []),
        ],
        // Not ready once a read model has stopped on an event it cannot apply.
        projections: () => projections.status(),
        metrics: () => projections.renderPrometheus(),
        routes: github ? [github.webhooks.route] : [],
      });
    } catch (error) {
      await app.close();
      throw error;
    }
    projections.start();
    github?.reactor.start();
    logger.info(
      {
        role: flags.role,
        url: http.url,
        database: app.database.kind,
        location: app.database.location,
        eventStore: app.eventStore.kind,
        approvals: github ? `github ${github.settings.repository}` : 'local',
        projections: projections.status().map((status) => status.name),
      },
      'cogitave ready',
    );
    await new Promise<void>((resolve) => {
      const stop = (signal: NodeJS.Signals): void => {
        logger.info({ signal }, 'shutting down');
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await http.close();
    await app.close();
  });
