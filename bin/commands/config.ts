import { Command } from 'commander';
import { describeSettings, loadConfig, type SettingName } from '../../services/runtime/config.js';
import { redactUrl } from '../../services/runtime/logger.js';

const SECRET_URLS: readonly SettingName[] = ['databaseUrl', 'eventStoreUrl'];

export const configCommand = new Command('config')
  .description(
    'Validate the configuration and print every setting with its variable and current value.',
  )
  .option('--json', 'print as JSON')
  .action((flags: { json?: boolean }) => {
    const config = loadConfig();
    const rows = describeSettings().map(({ env, key, doc }) => {
      const raw = config[key as SettingName];
      const value =
        raw === undefined
          ? null
          : SECRET_URLS.includes(key as SettingName)
            ? redactUrl(String(raw))
            : raw;
      return { env, value, doc };
    });
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    for (const row of rows) {
      process.stdout.write(
        `${row.env}=${row.value === null ? '' : String(row.value)}\n    ${row.doc}\n`,
      );
    }
  });
