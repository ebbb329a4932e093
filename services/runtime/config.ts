import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { principalTableSchema } from './principal-table.js';
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

/**
 * A secret setting. It prints, logs and serialises as `[redacted]` (so `cogitave config`, pino
 * and error messages cannot leak it); `reveal()` hands the value to the one client that needs it.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret([redacted])';
  }
}

const secret = (rule: z.ZodType<string>) => rule.transform((value) => new Secret(value)).optional();

/** A PEM private key setting; one-line forms from .env files and secret stores: literal \n becomes a newline. */
const pemPrivateKey = (pattern: RegExp, message: string) =>
  secret(
    z
      .string()
      .transform((value) => value.replace(/\\n/g, '\n').trim())
      .pipe(z.string().regex(pattern, message)),
  );

const optionalId = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^\s*\d+\s*$/)
        .transform(Number),
    ],
    {
      error: 'must be a positive whole number',
    },
  )
  .pipe(z.number().int().positive({ error: 'must be a positive whole number' }))
  .optional();

/** The grants of one MCP bearer token (see `Grants` in mcp-gateway/registry.ts). */
const scopeList = z.union([z.literal('*'), z.array(z.string().min(1)).readonly()], {
  error: 'must be "*" or an array of names',
});
export const mcpTokenTableSchema = z.record(
  z
    .string()
    .regex(
      /^[0-9a-f]{64}$/,
      'keys must be sha256 hex digests of the tokens (64 lowercase hex digits)',
    ),
  z
    .object({
      name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'name must be 1-64 letters, digits, . _ -'),
      grants: z
        .object({
          products: scopeList.default('*'),
          types: scopeList.default('*'),
          propose: z.boolean().default(false),
          writeNetworks: z.boolean().default(false),
          decide: z.boolean().optional(),
        })
        .strict(),
    })
    .strict(),
);
export type McpTokenTable = z.output<typeof mcpTokenTableSchema>;

/** A table given as JSON text (environment) or as an object (config file). */
const jsonTable = <T extends z.ZodType>(schema: T) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .transform((value, ctx) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(schema)
    .optional();

const mcpTokenTableSetting = jsonTable(mcpTokenTableSchema);

const hostnameList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (typeof value === 'string' ? value.split(',') : value)
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  )
  .optional();

// A percent sign that starts no escape, a port out of range, a space in the host: the driver
// would fail later with a message that may echo the password.
const isParsableUrl = (value: string): boolean => {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
};

/** An issue's own words; a record key's are nested (zod says only "Invalid key in record"). */
export const issueMessage = (issue: z.core.$ZodIssue): string =>
  issue.code === 'invalid_key' ? issue.issues.map(issueMessage).join('; ') : issue.message;

/**
 * The refusal of one or more settings: one line per problem, each starting with the variable
 * it names and saying how to fix it (the CLI prints them as they are, exit 78).
 */
export const configInvalid = (
  problems: readonly string[],
  details: Record<string, unknown> = {},
  options?: ErrorOptions,
): CogitaveError =>
  new CogitaveError('CONFIG_INVALID', problems.join('\n'), { ...details, problems }, options);

const settings = {
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .refine(isParsableUrl, 'must be a valid URL (postgres://user:password@host:port/database)')
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
  graphQueryTimeoutMs: {
    env: 'COGITAVE_GRAPH_QUERY_TIMEOUT_MS',
    schema: wholeNumber(50, 60_000, 2000),
    doc: 'Statement timeout of one query_graph query, in milliseconds.',
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
    doc: 'Log level of the logs written to stderr.',
  },
  logFormat: {
    env: 'LOG_FORMAT',
    schema: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
    doc: 'Logs on stderr as JSON lines or pretty lines for a person; unset: pretty when stderr is a terminal, JSON otherwise.',
  },
  githubRepository: {
    env: 'GITHUB_REPOSITORY',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/, 'must be owner/name')
      .optional(),
    doc: 'GitHub repository (owner/name) that receives intake issues and proposal pull requests.',
  },
  githubToken: {
    env: 'GITHUB_TOKEN',
    schema: secret(z.string().trim().min(1)),
    doc: 'GitHub token (repo contents, issues, pull requests). Set it or the GITHUB_APP_* trio; either turns GitHub mode on.',
  },
  githubAppId: {
    env: 'GITHUB_APP_ID',
    schema: optionalId,
    doc: 'GitHub App id, with GITHUB_APP_PRIVATE_KEY and GITHUB_APP_INSTALLATION_ID instead of GITHUB_TOKEN.',
  },
  githubAppPrivateKey: {
    env: 'GITHUB_APP_PRIVATE_KEY',
    schema: pemPrivateKey(
      /^-----BEGIN [A-Z ]*PRIVATE KEY-----\n[\s\S]+\n-----END [A-Z ]*PRIVATE KEY-----$/,
      'must be a PEM private key (-----BEGIN ... PRIVATE KEY-----; \\n escapes allowed)',
    ),
    doc: 'PEM private key of the GitHub App (newlines may be written as \\n).',
  },
  githubAppInstallationId: {
    env: 'GITHUB_APP_INSTALLATION_ID',
    schema: optionalId,
    doc: 'Installation id of the GitHub App on the repository owner.',
  },
  githubApiUrl: {
    env: 'GITHUB_API_URL',
    schema: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
    doc: 'GitHub REST API base URL. Unset: https://api.github.com (set it for GitHub Enterprise).',
  },
  githubWebhookSecret: {
    env: 'GITHUB_WEBHOOK_SECRET',
    schema: secret(z.string().min(1)),
    doc: 'Secret of the repository webhook; POST /webhooks/github verifies X-Hub-Signature-256 with it. Required in GitHub mode.',
  },
  githubBaseBranch: {
    env: 'GITHUB_BASE_BRANCH',
    schema: z
      .string()
      .regex(/^[^\s~^:?*[\\]+$/, 'must be a branch name')
      .optional(),
    doc: "Branch proposal pull requests target. Unset: the repository's default branch.",
  },
  catalogDir: {
    env: 'CATALOG_DIR',
    schema: z.string().trim().min(1, 'must be a folder path or none').optional(),
    doc: 'Corpus folder the knowledge graph is ingested from at start-up. Unset: the documentation shipped with Cogitave Core; none: no start-up ingest.',
  },
  mcpTokens: {
    env: 'MCP_TOKENS',
    schema: mcpTokenTableSetting,
    doc: 'Bearer tokens of /mcp as JSON: {"<sha256 hex of the token>": {"name": "ci-bot", "grants": {"products": "*" | [...], "types": "*" | [...], "propose": bool, "writeNetworks": bool, "decide": bool}}}. Unset with MCP_TOKENS_FILE: local mode (everything as actor "local"), loopback binds only.',
  },
  mcpTokensFile: {
    env: 'MCP_TOKENS_FILE',
    schema: z.string().min(1).optional(),
    doc: 'A JSON file holding the MCP_TOKENS table (merged with MCP_TOKENS).',
  },
  principals: {
    env: 'COGITAVE_PRINCIPALS',
    schema: jsonTable(principalTableSchema),
    doc: 'Who is who, as JSON: {"<principal>": {"tokens": [MCP token names], "github": [GitHub logins], "maintainer": bool}}. Four eyes compares principals: nobody approves what their own tokens proposed. With any maintainer listed, only maintainers approve (merges by others do not count). Unset: every identity is its own principal by name (token:ada, github:ada and --as ada on the CLI are one).',
  },
  mcpAllowedHosts: {
    env: 'MCP_ALLOWED_HOSTS',
    schema: hostnameList,
    doc: 'Host header names every HTTP route accepts (comma-separated, no ports; DNS-rebinding protection); the host of MCP_PUBLIC_URL is always accepted, and /healthz, /readyz, /metrics also answer an IP address. Default: localhost, 127.0.0.1, [::1] and the bind address.',
  },
  mcpAllowedOrigins: {
    env: 'MCP_ALLOWED_ORIGINS',
    schema: hostnameList,
    doc: 'Origin hostnames browsers may call the server from (comma-separated); set, they are also granted CORS (preflight, Mcp-Session-Id and MCP-Protocol-Version exposed). Default: localhost, 127.0.0.1, [::1], without CORS. Requests without Origin pass.',
  },
  mcpPublicUrl: {
    env: 'MCP_PUBLIC_URL',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    doc: 'Public URL of the MCP endpoint (https://mcp.example.com/mcp); every URL the server prints or serves (llms.txt, protected-resource metadata, WWW-Authenticate) is built from it. Default: the bound address.',
  },
  consoleSecret: {
    env: 'COGITAVE_CONSOLE_SECRET',
    schema: secret(z.string().min(32, 'must be at least 32 characters')),
    doc: 'Key that signs console session cookies and CSRF tokens; set the same value on every gateway replica so a login holds across them. Unset: a random key per process (logins end when it restarts).',
  },
  httpHeadersTimeoutMs: {
    env: 'COGITAVE_HTTP_HEADERS_TIMEOUT_MS',
    schema: wholeNumber(100, 600_000, 10_000),
    doc: 'Time a client has to send its request headers before the connection is closed (408).',
  },
  httpRequestTimeoutMs: {
    env: 'COGITAVE_HTTP_REQUEST_TIMEOUT_MS',
    schema: wholeNumber(100, 600_000, 30_000),
    doc: 'Time a client has to send its whole request, body included (408); streamed answers may last longer.',
  },
  mcpMaxSessions: {
    env: 'COGITAVE_MCP_MAX_SESSIONS',
    schema: wholeNumber(1, 100_000, 1000),
    doc: '2025-11-25 MCP sessions one gateway process holds, all callers together (503 beyond).',
  },
  mcpMaxSessionsPerCaller: {
    env: 'COGITAVE_MCP_MAX_SESSIONS_PER_CALLER',
    schema: wholeNumber(1, 100_000, 100),
    doc: '2025-11-25 MCP sessions one caller (token, or local) may hold at a time (429 beyond).',
  },
  mcpSessionIdleMs: {
    env: 'COGITAVE_MCP_SESSION_IDLE_MS',
    schema: wholeNumber(1000, 86_400_000, 1_800_000),
    doc: 'A 2025-11-25 session with no request and no open stream for this long is closed.',
  },
  mcpMaxListenStreams: {
    env: 'COGITAVE_MCP_MAX_LISTEN_STREAMS',
    schema: wholeNumber(1, 100_000, 1024),
    doc: '2026-07-28 subscriptions/listen streams one gateway process holds open, all callers together.',
  },
  mcpMaxListenStreamsPerCaller: {
    env: 'COGITAVE_MCP_MAX_LISTEN_STREAMS_PER_CALLER',
    schema: wholeNumber(1, 100_000, 64),
    doc: '2026-07-28 subscriptions/listen streams one caller may hold open at a time (429 beyond).',
  },
  embeddingsUrl: {
    env: 'EMBEDDINGS_URL',
    schema: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
    doc: 'Base URL of an OpenAI-compatible embeddings API (POST {url}/embeddings) for search. Unset: the built-in embedding derived from the indexed corpus.',
  },
  embeddingsModel: {
    env: 'EMBEDDINGS_MODEL',
    schema: z.string().trim().min(1).optional(),
    doc: 'Model sent to the embeddings API (required with EMBEDDINGS_URL).',
  },
  embeddingsApiKey: {
    env: 'EMBEDDINGS_API_KEY',
    schema: secret(z.string().trim().min(1)),
    doc: 'Bearer key of the embeddings API (omit for local servers that need none).',
  },
  digestDir: {
    env: 'COGITAVE_DIGEST_DIR',
    schema: z.string().trim().min(1).default('.cogitave/digests'),
    doc: 'Folder digests of the log are published to (digests.jsonl, latest.json); `cogitave verify` checks against its latest.',
  },
  digestIntervalMs: {
    env: 'COGITAVE_DIGEST_INTERVAL_MS',
    schema: wholeNumber(0, 86_400_000, 60_000),
    doc: 'A serve process publishes a digest this often when the log moved (and always at shutdown); 0: at shutdown only.',
  },
  digestSigningKey: {
    env: 'COGITAVE_DIGEST_SIGNING_KEY',
    schema: pemPrivateKey(
      /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----$/,
      'must be a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----; \\n escapes allowed), e.g. from openssl genpkey -algorithm ed25519',
    ),
    doc: 'Ed25519 private key (PEM PKCS#8) that signs digests. Unset (and no COGITAVE_DIGEST_SIGNING_KEY_FILE): digests are unsigned.',
  },
  digestSigningKeyFile: {
    env: 'COGITAVE_DIGEST_SIGNING_KEY_FILE',
    schema: z.string().trim().min(1).optional(),
    doc: 'A file holding the digest signing key (instead of COGITAVE_DIGEST_SIGNING_KEY).',
  },
  digestPublicKey: {
    env: 'COGITAVE_DIGEST_PUBLIC_KEY',
    schema: z.string().trim().min(1).optional(),
    doc: "Ed25519 public key (PEM, or the 32 raw bytes in base64) digests must be signed with; `verify` refuses others. Default: the signing key's.",
  },
} as const;

type Settings = typeof settings;
export type Config = { readonly [K in keyof Settings]: z.output<Settings[K]['schema']> };
export type SettingName = keyof Settings;

export const CONFIG_FILE_ENV = 'COGITAVE_CONFIG_FILE';
const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'databaseUrl',
  'eventStoreUrl',
  'githubToken',
  'githubAppPrivateKey',
  'githubWebhookSecret',
  'embeddingsApiKey',
  'digestSigningKey',
]);

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
      const reason = result.error.issues.map(issueMessage).join('; ');
      // Connection strings may carry passwords: never echo them back.
      const shown = SECRET_SETTINGS.has(key)
        ? 'value hidden'
        : `got ${fromEnv ?? JSON.stringify(fromFile[key])}`;
      problems.push(`${source}: ${reason} (${shown})`);
    }
  }
  if (problems.length === 0) problems.push(...checkGitHubSettings(config));
  if (config.digestSigningKey !== undefined && config.digestSigningKeyFile !== undefined) {
    problems.push(
      'COGITAVE_DIGEST_SIGNING_KEY_FILE: set either it or COGITAVE_DIGEST_SIGNING_KEY, not both',
    );
  }
  if (config.embeddingsUrl !== undefined && config.embeddingsModel === undefined) {
    problems.push('EMBEDDINGS_MODEL: required when EMBEDDINGS_URL is set (the model to call)');
  }
  if (problems.length > 0) throw configInvalid(problems);
  return Object.freeze(config) as Config;
};

/**
 * GitHub mode is on when credentials are set (GITHUB_TOKEN or GITHUB_APP_ID), not merely
 * GITHUB_REPOSITORY: GitHub Actions sets that one for every workflow run. Once on, it needs a
 * repository, complete credentials and a webhook secret (without it approvals could never
 * arrive, and local approval is off in GitHub mode).
 */
const checkGitHubSettings = (config: Partial<Config>): string[] => {
  const token = config.githubToken !== undefined;
  const app = [config.githubAppId, config.githubAppPrivateKey, config.githubAppInstallationId];
  if (!token && app.every((value) => value === undefined)) return [];
  const problems: string[] = [];
  if (token && app.some((value) => value !== undefined)) {
    problems.push('GITHUB_TOKEN: set either GITHUB_TOKEN or the GITHUB_APP_* settings, not both');
  } else if (!token) {
    const missing = [
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY',
      'GITHUB_APP_INSTALLATION_ID',
    ].filter((_name, index) => app[index] === undefined);
    if (missing.length > 0) {
      problems.push(`${missing.join(', ')}: required with the other GITHUB_APP_* settings`);
    }
  }
  if (config.githubRepository === undefined) {
    problems.push('GITHUB_REPOSITORY: required when GitHub credentials are set (owner/name)');
  }
  if (config.githubWebhookSecret === undefined) {
    problems.push(
      'GITHUB_WEBHOOK_SECRET: required when GitHub credentials are set (approvals arrive as signed webhooks)',
    );
  }
  return problems;
};
