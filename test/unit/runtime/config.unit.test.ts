import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_ENV, describeSettings, loadConfig } from '../../../services/runtime/config.js';
import { CogitaveError } from '../../../services/runtime/errors.js';

const folder = mkdtempSync(join(tmpdir(), 'cogitave-config-'));
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

let files = 0;
/** Writes `content` (an object is written as JSON) to a fresh file and returns its path. */
const configFile = (content: unknown): string => {
  files += 1;
  const path = join(folder, `config-${files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

/** The CONFIG_INVALID error `load` throws; fails the test when it throws nothing else. */
const configError = (env: Record<string, string | undefined>): CogitaveError => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(CogitaveError);
    expect((error as CogitaveError).code).toBe('CONFIG_INVALID');
    return error as CogitaveError;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
};

const DEFAULTS = {
  databaseUrl: undefined,
  dataDir: '.cogitave/data',
  eventStoreUrl: undefined,
  databasePoolSize: 10,
  pollIntervalMs: 1000,
  graphQueryTimeoutMs: 2000,
  httpHost: '127.0.0.1',
  httpPort: 3100,
  logLevel: 'info',
  digestDir: '.cogitave/digests',
  digestIntervalMs: 60_000,
};

/** The bounds of the HTTP and MCP edge, all with defaults. */
const EDGE_DEFAULTS = {
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
  mcpMaxSessions: 1000,
  mcpMaxSessionsPerCaller: 100,
  mcpSessionIdleMs: 1_800_000,
  mcpMaxListenStreams: 1024,
  mcpMaxListenStreamsPerCaller: 64,
};

describe('loadConfig from the environment', () => {
  it('given an empty environment, when loaded, then every setting has its default and the result is frozen', () => {
    const config = loadConfig({});

    expect({ ...config }).toEqual({ ...DEFAULTS, ...EDGE_DEFAULTS });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('given empty strings for every variable, when loaded, then they count as unset and the defaults apply', () => {
    const env = Object.fromEntries(describeSettings().map(({ env: name }) => [name, '']));

    expect({ ...loadConfig(env) }).toEqual({ ...DEFAULTS, ...EDGE_DEFAULTS });
  });

  it('given every variable set to a valid value, when loaded, then each is parsed to its typed value', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://app:pw@db.internal:5433/cogitave',
      COGITAVE_DATA_DIR: '/var/lib/cogitave',
      EVENTSTORE_URL: 'esdb://esdb.internal:2113?tls=false',
      COGITAVE_DB_POOL_SIZE: '25',
      COGITAVE_POLL_INTERVAL_MS: '250',
      COGITAVE_GRAPH_QUERY_TIMEOUT_MS: '5000',
      COGITAVE_HTTP_HOST: '0.0.0.0',
      COGITAVE_HTTP_PORT: '8080',
      LOG_LEVEL: 'debug',
    });

    expect({ ...config }).toEqual({
      databaseUrl: 'postgresql://app:pw@db.internal:5433/cogitave',
      dataDir: '/var/lib/cogitave',
      eventStoreUrl: 'esdb://esdb.internal:2113?tls=false',
      databasePoolSize: 25,
      pollIntervalMs: 250,
      graphQueryTimeoutMs: 5000,
      httpHost: '0.0.0.0',
      httpPort: 8080,
      logLevel: 'debug',
      ...EDGE_DEFAULTS,
      digestDir: '.cogitave/digests',
      digestIntervalMs: 60_000,
    });
  });

  it.each([
    ['DATABASE_URL', 'postgres://localhost/x', 'databaseUrl', 'postgres://localhost/x'],
    [
      'EVENTSTORE_URL',
      'kurrentdb+discover://a:2113',
      'eventStoreUrl',
      'kurrentdb+discover://a:2113',
    ],
    ['EVENTSTORE_URL', 'esdb+discover://a:2113', 'eventStoreUrl', 'esdb+discover://a:2113'],
    ['COGITAVE_DB_POOL_SIZE', '2', 'databasePoolSize', 2],
    ['COGITAVE_DB_POOL_SIZE', '200', 'databasePoolSize', 200],
    ['COGITAVE_POLL_INTERVAL_MS', '10', 'pollIntervalMs', 10],
    ['COGITAVE_POLL_INTERVAL_MS', '60000', 'pollIntervalMs', 60_000],
    ['COGITAVE_HTTP_PORT', '0', 'httpPort', 0],
    ['COGITAVE_HTTP_PORT', '65535', 'httpPort', 65_535],
    ['LOG_LEVEL', 'silent', 'logLevel', 'silent'],
    ['LOG_LEVEL', 'fatal', 'logLevel', 'fatal'],
    ['LOG_FORMAT', 'json', 'logFormat', 'json'],
    ['LOG_FORMAT', 'pretty', 'logFormat', 'pretty'],
  ] as const)(
    'given %s=%s (a boundary or variant), when loaded, then %s is %s',
    (variable, value, key, expected) => {
      expect(loadConfig({ [variable]: value })[key]).toBe(expected);
    },
  );

  it.each([
    ['COGITAVE_DB_POOL_SIZE', '1', 'must be a whole number from 2 to 200'],
    ['COGITAVE_DB_POOL_SIZE', '201', 'must be a whole number from 2 to 200'],
    ['COGITAVE_POLL_INTERVAL_MS', '9', 'must be a whole number from 10 to 60000'],
    ['COGITAVE_POLL_INTERVAL_MS', '60001', 'must be a whole number from 10 to 60000'],
    ['COGITAVE_HTTP_PORT', '-1', 'must be a whole number from 0 to 65535'],
    ['COGITAVE_HTTP_PORT', '80.5', 'must be a whole number from 0 to 65535'],
    ['COGITAVE_HTTP_PORT', 'eighty', 'must be a whole number from 0 to 65535'],
    ['LOG_LEVEL', 'INFO', 'must be one of fatal, error, warn, info, debug, trace, silent'],
    ['LOG_FORMAT', 'text', 'must be json or pretty'],
  ])(
    'given %s=%s (just outside its rule), when loaded, then CONFIG_INVALID names the variable, the rule and the value',
    (variable, value, rule) => {
      const error = configError({ [variable]: value });

      expect(error.message).toContain(`${variable}: ${rule} (got ${value})`);
      expect(error.details).toEqual({ problems: [`${variable}: ${rule} (got ${value})`] });
    },
  );

  it('given bad values for several variables, when loaded, then every problem is reported at once, one line per variable', () => {
    const error = configError({
      COGITAVE_DB_POOL_SIZE: '1.5',
      COGITAVE_POLL_INTERVAL_MS: 'abc',
      COGITAVE_HTTP_PORT: '70000',
      LOG_LEVEL: 'loud',
      EVENTSTORE_URL: 'http://esdb:2113',
      COGITAVE_HTTP_HOST: 'fine.example',
    });

    const problems = error.details.problems as string[];
    expect(problems).toEqual([
      'EVENTSTORE_URL: must be an esdb:// connection string (value hidden)',
      'COGITAVE_DB_POOL_SIZE: must be a whole number from 2 to 200 (got 1.5)',
      'COGITAVE_POLL_INTERVAL_MS: must be a whole number from 10 to 60000 (got abc)',
      'COGITAVE_HTTP_PORT: must be a whole number from 0 to 65535 (got 70000)',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got loud)',
    ]);
    expect(error.message).toBe(problems.join('\n'));
    expect(error.message).not.toContain('COGITAVE_HTTP_HOST');
  });

  it('given a DATABASE_URL with a password that is not a postgres URL, when loaded, then the message names the variable and never shows the URL or the password', () => {
    const error = configError({ DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal/app' });

    expect(error.message).toContain(
      'DATABASE_URL: must be a postgres:// or postgresql:// URL (value hidden)',
    );
    const everything = `${error.message} ${JSON.stringify(error.details)} ${error.stack ?? ''}`;
    expect(everything).not.toContain('hunter2-secret');
    expect(everything).not.toContain('db.internal');
  });

  it('given an EVENTSTORE_URL with a password that is not an esdb URL, when loaded, then the password is not echoed', () => {
    const error = configError({ EVENTSTORE_URL: 'https://admin:changeit-pw@esdb:2113' });

    expect(error.message).toContain('EVENTSTORE_URL: must be an esdb:// connection string');
    expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('changeit-pw');
  });

  // Product bug: z.coerce.number turns a blank string into 0, so a port of only spaces (a
  // typo, not an empty value) silently becomes "pick any free port" instead of an error.
  it('given COGITAVE_HTTP_PORT of only spaces, when loaded, then it is refused as not a whole number', () => {
    const error = configError({ COGITAVE_HTTP_PORT: '   ' });

    expect(error.message).toContain('COGITAVE_HTTP_PORT: must be a whole number from 0 to 65535');
  });
});

describe('loadConfig with a config file', () => {
  it('given a file with values, when loaded without those variables, then the file values are used', () => {
    const path = configFile({
      dataDir: '/srv/cogitave',
      databasePoolSize: 40,
      httpPort: 9000,
      logLevel: 'warn',
    });

    const config = loadConfig({ [CONFIG_FILE_ENV]: path });

    expect({ ...config }).toEqual({
      ...DEFAULTS,
      ...EDGE_DEFAULTS,
      dataDir: '/srv/cogitave',
      databasePoolSize: 40,
      httpPort: 9000,
      logLevel: 'warn',
    });
  });

  it('given a file and variables for the same settings, when loaded, then the variables win and the rest comes from the file', () => {
    const path = configFile({ httpPort: 9000, logLevel: 'warn', httpHost: '10.0.0.1' });

    const config = loadConfig({
      [CONFIG_FILE_ENV]: path,
      COGITAVE_HTTP_PORT: '9100',
      LOG_LEVEL: 'error',
    });

    expect(config.httpPort).toBe(9100);
    expect(config.logLevel).toBe('error');
    expect(config.httpHost).toBe('10.0.0.1');
  });

  it('given a file with an invalid value that a variable overrides, when loaded, then the variable is used and nothing is refused', () => {
    const path = configFile({ httpPort: 'not a port' });

    expect(loadConfig({ [CONFIG_FILE_ENV]: path, COGITAVE_HTTP_PORT: '4000' }).httpPort).toBe(4000);
  });

  it('given a file with invalid values, when loaded, then each problem names the key and the file, and file secrets stay hidden', () => {
    const path = configFile({
      databaseUrl: 'mysql://root:file-secret@db/app',
      databasePoolSize: 500,
      logLevel: 'chatty',
    });

    const error = configError({ [CONFIG_FILE_ENV]: path });

    expect(error.details.problems).toEqual([
      `databaseUrl in ${path}: must be a postgres:// or postgresql:// URL (value hidden)`,
      `databasePoolSize in ${path}: must be a whole number from 2 to 200 (got 500)`,
      `logLevel in ${path}: must be one of fatal, error, warn, info, debug, trace, silent (got "chatty")`,
    ]);
    expect(error.message).not.toContain('file-secret');
  });

  it('given a file with unknown keys, when loaded, then CONFIG_INVALID lists every unknown key and the allowed ones', () => {
    const path = configFile({ port: 1, httpPort: 2, DATABASE_URL: 'postgres://x/y' });

    const error = configError({ [CONFIG_FILE_ENV]: path });

    expect(error.message).toContain(
      `${CONFIG_FILE_ENV}: "${path}" has unknown keys port, DATABASE_URL`,
    );
    expect(error.message).toContain(
      'allowed: databaseUrl, dataDir, eventStoreUrl, databasePoolSize, pollIntervalMs, graphQueryTimeoutMs, httpHost, httpPort, logLevel',
    );
    expect(error.message).not.toContain('postgres://x/y');
  });

  it('given a file that is not valid JSON, when loaded, then CONFIG_INVALID names the variable and the file', () => {
    const path = configFile('{ "httpPort": 80, }');

    const error = configError({ [CONFIG_FILE_ENV]: path });

    expect(error.message).toMatch(
      new RegExp(
        `^${CONFIG_FILE_ENV}: "${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" is not valid JSON \\(.+\\)$`,
      ),
    );
  });

  it.each([
    ['an array', '[{"httpPort": 80}]'],
    ['a string', '"httpPort"'],
    ['null', 'null'],
  ])(
    'given a file holding %s, when loaded, then CONFIG_INVALID says it must hold a JSON object',
    (_what, text) => {
      const path = configFile(text);

      expect(configError({ [CONFIG_FILE_ENV]: path }).message).toBe(
        `${CONFIG_FILE_ENV}: "${path}" must hold a JSON object`,
      );
    },
  );

  it('given a config file path that does not exist, when loaded, then CONFIG_INVALID names the variable, the path and the reason', () => {
    const path = join(folder, 'missing.json');

    const error = configError({ [CONFIG_FILE_ENV]: path });

    expect(error.message).toContain(`${CONFIG_FILE_ENV}: cannot read "${path}"`);
    expect(error.message).toContain('ENOENT');
  });

  // Product bug: the file's JSON values go through z.coerce.number, so `true` becomes port 1
  // and `null` becomes port 0 instead of being refused as "not a whole number".
  it.each([
    ['true', true],
    ['null', null],
  ])(
    'given a file with httpPort %s (not a number), when loaded, then it is refused naming the key',
    (_label, value) => {
      const path = configFile({ httpPort: value });

      expect(configError({ [CONFIG_FILE_ENV]: path }).message).toContain(
        `httpPort in ${path}: must be a whole number from 0 to 65535`,
      );
    },
  );
});

describe('describeSettings', () => {
  it('given the settings table, when described, then it lists every variable with its config key and a sentence, in a fixed order', () => {
    const rows = describeSettings();

    expect(rows.map((row) => row.env)).toEqual([
      'DATABASE_URL',
      'COGITAVE_DATA_DIR',
      'EVENTSTORE_URL',
      'COGITAVE_DB_POOL_SIZE',
      'COGITAVE_POLL_INTERVAL_MS',
      'COGITAVE_GRAPH_QUERY_TIMEOUT_MS',
      'COGITAVE_HTTP_HOST',
      'COGITAVE_HTTP_PORT',
      'LOG_LEVEL',
      'LOG_FORMAT',
      'GITHUB_REPOSITORY',
      'GITHUB_TOKEN',
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY',
      'GITHUB_APP_INSTALLATION_ID',
      'GITHUB_API_URL',
      'GITHUB_WEBHOOK_SECRET',
      'GITHUB_BASE_BRANCH',
      'CATALOG_DIR',
      'MCP_TOKENS',
      'MCP_TOKENS_FILE',
      'COGITAVE_PRINCIPALS',
      'MCP_ALLOWED_HOSTS',
      'MCP_ALLOWED_ORIGINS',
      'MCP_PUBLIC_URL',
      'COGITAVE_CONSOLE_SECRET',
      'COGITAVE_HTTP_HEADERS_TIMEOUT_MS',
      'COGITAVE_HTTP_REQUEST_TIMEOUT_MS',
      'COGITAVE_MCP_MAX_SESSIONS',
      'COGITAVE_MCP_MAX_SESSIONS_PER_CALLER',
      'COGITAVE_MCP_SESSION_IDLE_MS',
      'COGITAVE_MCP_MAX_LISTEN_STREAMS',
      'COGITAVE_MCP_MAX_LISTEN_STREAMS_PER_CALLER',
      'EMBEDDINGS_URL',
      'EMBEDDINGS_MODEL',
      'EMBEDDINGS_API_KEY',
      'COGITAVE_DIGEST_DIR',
      'COGITAVE_DIGEST_INTERVAL_MS',
      'COGITAVE_DIGEST_SIGNING_KEY',
      'COGITAVE_DIGEST_SIGNING_KEY_FILE',
      'COGITAVE_DIGEST_PUBLIC_KEY',
    ]);
    expect(rows.map((row) => row.key).slice(0, 9)).toEqual(Object.keys(DEFAULTS).slice(0, 9));
    for (const row of rows) expect(row.doc.length).toBeGreaterThan(10);
  });
});

describe('COGITAVE_PRINCIPALS', () => {
  it('given a principal table, when loaded, then defaults fill in and the table is kept as given', () => {
    const config = loadConfig({
      COGITAVE_PRINCIPALS: JSON.stringify({
        octocat: { tokens: ['octocat-agent'], github: ['octocat'], maintainer: true },
        grace: { github: ['grace'] },
      }),
    });
    expect(config.principals).toEqual({
      octocat: { tokens: ['octocat-agent'], github: ['octocat'], maintainer: true },
      grace: { tokens: [], github: ['grace'], maintainer: false },
    });
  });

  it('given an identity listed under two principals, an unknown key or a bad login, when loaded, then CONFIG_INVALID names the variable and the rule', () => {
    const twice = configError({
      COGITAVE_PRINCIPALS: JSON.stringify({
        a: { github: ['Octocat'] },
        b: { github: ['octocat'] },
      }),
    });
    const unknownKey = configError({
      COGITAVE_PRINCIPALS: JSON.stringify({ a: { logins: ['octocat'] } }),
    });
    const badLogin = configError({
      COGITAVE_PRINCIPALS: JSON.stringify({ a: { github: ['-not-a-login'] } }),
    });
    const notJson = configError({ COGITAVE_PRINCIPALS: '{octocat' });

    expect(twice.message).toContain(
      'COGITAVE_PRINCIPALS: GitHub login octocat belongs to both a and b; an identity has one principal',
    );
    expect(unknownKey.message).toMatch(/COGITAVE_PRINCIPALS: .*logins/);
    expect(badLogin.message).toContain('COGITAVE_PRINCIPALS: must be GitHub logins');
    expect(notJson.message).toContain('COGITAVE_PRINCIPALS: must be a JSON object');
  });
});
