import { Command, Option } from 'commander';
import { startHttpServer } from '../../mcp-gateway/http/server.js';
import { createApp } from '../../services/runtime/app.js';
import { loadConfig } from '../../services/runtime/config.js';
import { commandLogger } from './context.js';

const ROLES = ['all'] as const;

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
    const { github } = app;
    let http;
    try {
      http = await startHttpServer({
        host: config.httpHost,
        port: config.httpPort,
        logger,
        readiness: [
          {
            name: 'database',
            probe: async () => (await app.database.pool.query('SELECT 1 AS ok')).rowCount === 1,
          },
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
        routes: github ? [github.webhooks.route] : [],
      });
    } catch (error) {
      await app.close();
      throw error;
    }
    github?.reactor.start();
    logger.info(
      {
        role: flags.role,
        url: http.url,
        database: app.database.kind,
        location: app.database.location,
        eventStore: app.eventStore.kind,
        approvals: github ? `github ${github.settings.repository}` : 'local',
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
