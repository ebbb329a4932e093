import { Command, Option } from 'commander';
import {
  describeSettings,
  loadConfig,
  Secret,
  type SettingName,
} from '../../services/runtime/config.js';
import { redactUrl } from '../../services/runtime/logger.js';
import { preflight } from './serve/preflight.js';
import { ROLE_HELP, ROLES, type Role } from './serve/roles.js';

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

interface ConfigFlags {
  readonly json?: boolean;
  readonly role: Role;
  readonly stdio: boolean;
  readonly checkConnections: boolean;
}

export const configCommand = new Command('config')
  .description(
    'Validate the configuration as `serve` does (files, folders, bind address, role, and that the database answers) and print every setting with its variable and current value; exits as `serve` would refuse to start (78, or 69 when the database server does not answer).',
  )
  .option('--json', 'print as JSON')
  .addOption(
    new Option('--role <role>', `validate for serve --role: ${ROLE_HELP}`)
      .choices(ROLES)
      .default('all'),
  )
  .option('--stdio', 'validate for serve --stdio', false)
  .option('--no-check-connections', 'do not open a session to DATABASE_URL')
  .action(async (flags: ConfigFlags) => {
    const config = loadConfig();
    await preflight(config, {
      role: flags.role,
      stdio: flags.stdio,
      checkConnections: flags.checkConnections,
    });
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
