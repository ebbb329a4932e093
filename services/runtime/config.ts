import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { CogitaveError } from './errors.js';

/**
 * One row per setting: the environment variable, the zod schema that validates it, and the
 * sentence the README and `cogitave config` show. The rows are the single source of truth;
 * nothing else reads `process.env`.
 */
const wholeNumber = (min: number, max: number, fallback: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  // Digits only (from the environment) or a JSON number (from the file): no coercion of
  // blanks, booleans or null into 0 and 1.
  return z
    .union(
      [
        z.number({ error }),
        z
          .string({ error })
          .regex(/^\s*\d+\s*$/, { error })
          .transform(Number),
      ],
      { error },
    )
    .pipe(z.number().int({ error }).min(min, { error }).max(max, { error }))
    .default(fallback);
};

const settings = {
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    doc: 'Server Postgres for events and read models. Unset: embedded PGlite in COGITAVE_DATA_DIR.',
  },
  dataDir: {
    env: 'COGITAVE_DATA_DIR',
    schema: z.string().min(1).default('.cogitave/data'),
    doc: 'Folder of the embedded PGlite database (used only without DATABASE_URL).',
  },
  eventStoreUrl: {
    env: 'EVENTSTORE_URL',
    schema: z
      .string()
      .regex(
        /^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover):\/\//,
        'must be an esdb:// connection string',
      )
      .optional(),
    doc: 'EventStoreDB connection string (esdb://host:2113?tls=false). Set: events live in EventStoreDB, read models stay in Postgres.',
  },
  databasePoolSize: {
    env: 'COGITAVE_DB_POOL_SIZE',
    schema: wholeNumber(2, 200, 10),
    doc: 'Connections in the server Postgres pool (PGlite always uses one).',
  },
  pollIntervalMs: {
    env: 'COGITAVE_POLL_INTERVAL_MS',
    schema: wholeNumber(10, 60_000, 1000),
    doc: 'Subscribers re-read the log at least this often when no NOTIFY arrives.',
  },
  httpHost: {
    env: 'COGITAVE_HTTP_HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    doc: 'Address the HTTP server binds to.',
  },
  httpPort: {
    env: 'COGITAVE_HTTP_PORT',
    schema: wholeNumber(0, 65_535, 3100),
    doc: 'Port of the HTTP server (0 picks a free port).',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
    doc: 'Log level of the JSON logs written to stderr.',
  },
} as const;

type Settings = typeof settings;
export type Config = { readonly [K in keyof Settings]: z.output<Settings[K]['schema']> };
export type SettingName = keyof Settings;

export const CONFIG_FILE_ENV = 'COGITAVE_CONFIG_FILE';
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['databaseUrl', 'eventStoreUrl']);

export const describeSettings = (): { env: string; key: string; doc: string }[] =>
  Object.entries(settings).map(([key, s]) => ({ env: s.env, key, doc: s.doc }));

/** Values from the optional JSON config file, keyed by setting name (camelCase). */
const readConfigFile = (path: string): Record<string, unknown> => {
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `${CONFIG_FILE_ENV}: cannot read "${path}" (${(error as Error).message})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `${CONFIG_FILE_ENV}: "${path}" is not valid JSON (${(error as Error).message})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `${CONFIG_FILE_ENV}: "${path}" must hold a JSON object`,
    );
  }
  const unknownKeys = Object.keys(parsed).filter((key) => !(key in settings));
  if (unknownKeys.length > 0) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `${CONFIG_FILE_ENV}: "${path}" has unknown keys ${unknownKeys.join(', ')}; allowed: ${Object.keys(settings).join(', ')}`,
    );
  }
  return parsed as Record<string, unknown>;
};

/**
 * Builds the configuration once, at start-up. Environment variables win over the config
 * file. Every problem is reported at once, each naming its variable and what is allowed.
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): Config => {
  const filePath = env[CONFIG_FILE_ENV];
  const fromFile = filePath ? readConfigFile(filePath) : {};
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const raw = env[setting.env];
    const fromEnv = raw === undefined || raw === '' ? undefined : raw;
    const source = fromEnv !== undefined ? setting.env : `${key} in ${filePath ?? ''}`;
    const result = (setting.schema as z.ZodType).safeParse(fromEnv ?? fromFile[key]);
    if (result.success) {
      config[key] = result.data;
    } else {
      const reason = result.error.issues.map((issue) => issue.message).join('; ');
      // Connection strings may carry passwords: never echo them back.
      const shown = SECRET_SETTINGS.has(key)
        ? 'value hidden'
        : `got ${fromEnv ?? JSON.stringify(fromFile[key])}`;
      problems.push(`${source}: ${reason} (${shown})`);
    }
  }
  if (problems.length > 0) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `Invalid configuration:\n  ${problems.join('\n  ')}`,
      { problems },
    );
  }
  return Object.freeze(config) as Config;
};
