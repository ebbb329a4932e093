import { Command } from 'commander';
import { withApp } from './context.js';

export const migrateCommand = new Command('migrate')
  .description(
    'Create or upgrade the database schema (serve also does this at start-up), then exit.',
  )
  .action(async () => {
    await withApp(true, ({ database }) => {
      // createApp has migrated by now; report where.
      process.stdout.write(`schema is up to date (${database.kind}: ${database.location})\n`);
      return Promise.resolve();
    });
  });
