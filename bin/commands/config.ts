import { Command } from 'commander';
import {
  describeSettings,
  loadConfig,
  Secret,
  type SettingName,
} from '../../services/runtime/config.js';
import { redactUrl } from '../../services/runtime/logger.js';

const SECRET_URLS: readonly SettingName[] = ['databaseUrl', 'eventStoreUrl'];

/** Lists and tables as JSON; a `Secret` prints as `[redacted]` either way. */
const display = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (value instanceof Secret) return value.toString();
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return value.toString();
    default:
      return JSON.stringify(value);
  }
};

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
            ? redactUrl(display(raw))
            : raw;
      return { env, value, doc };
    });
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    for (const row of rows) {
      process.stdout.write(`${row.env}=${display(row.value)}\n    ${row.doc}\n`);
    }
  });
