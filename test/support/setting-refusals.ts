import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './cli.js';
import { adminUrl } from './postgres.js';

/**
 * The settings `serve` (and `cogitave config`) refuse, as a table shared by the in-process
 * check of every case and the end-to-end run of the CLI: each row is an environment, the exit
 * code, the variable the one line must start with and what else it must say.
 */
export interface SettingRefusal {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly code: 78 | 69;
  readonly variable: string;
  readonly says?: RegExp;
  /** Extra arguments for serve and config (a role). */
  readonly args?: readonly string[];
  /** Only meaningful for a process running as nobody (root may write anywhere). */
  readonly asNobody?: boolean;
  /** Why this case cannot run here, or false. */
  readonly skip: string | false;
  /** Also spawned end to end (each spawn costs seconds of CPU: one per kind of failure). */
  readonly endToEnd: boolean;
}

export interface SettingRefusalFixtures {
  readonly root: string;
  readonly cases: readonly SettingRefusal[];
  /** Values that must never appear in any output. */
  readonly secrets: readonly string[];
  readonly password: string;
  /** The admin database's URL with `password` in it. */
  readonly reachableUrl: string;
  /** Environment every case starts from: a working embedded folder, a console secret. */
  baseEnv(): Record<string, string>;
  cleanup(): void;
}

const PASSWORD = 'pw-Zq7-never-printed';
const CONSOLE_SECRET = 'console-secret-that-must-never-be-printed-0123';
const WEBHOOK_SECRET = 'webhook-secret-never-printed';
const KEY_BODY = 'bm90IGEga2V5';
// The PEM frame the setting's schema checks, around something that is no key.
const FRAMED_NON_KEY = `-----BEGIN PRIVATE KEY-----\\n${KEY_BODY}\\n-----END PRIVATE KEY-----`;

const withCredentials = (database: string, user = 'postgres'): string => {
  const url = new URL(adminUrl());
  url.username = user;
  url.password = PASSWORD;
  url.pathname = `/${database}`;
  return url.toString();
};

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const settingRefusalFixtures = (): SettingRefusalFixtures => {
  const root = mkdtempSync(join(tmpdir(), 'cogitave-settings-'));
  const path = (...parts: string[]): string => join(root, ...parts);
  writeFileSync(path('a-file'), 'not a folder\n');
  writeFileSync(path('tokens-not-json.json'), '{"abc": ');
  writeFileSync(path('tokens-bad-table.json'), JSON.stringify({ abc: { name: 'ci' } }));
  writeFileSync(path('not-a-key.pem'), 'hello\n');
  mkdirSync(path('empty-folder'));

  const isRoot = process.getuid?.() === 0;
  // A 1 MB tmpfs is a full disk; root only, and only where mounting works.
  const tinyDisk = path('tiny-disk');
  mkdirSync(tinyDisk);
  const mounted =
    isRoot && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', tinyDisk]).status === 0;
  // A read-only tmpfs: not writable even by root.
  const readOnlyDisk = path('read-only-disk');
  mkdirSync(readOnlyDisk);
  const mountedReadOnly =
    isRoot &&
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnlyDisk]).status === 0;
  // A folder nobody (uid 65534) may not write into; the digests go where anybody may write.
  // The CLI runs from the checkout, which nobody must be able to read (a clone in a 0700
  // temporary folder is not).
  const nobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];
  const canDropToNobody =
    isRoot &&
    spawnSync('setpriv', [
      ...nobody,
      'test',
      '-r',
      join(repoRoot, 'node_modules', 'tsx', 'package.json'),
    ]).status === 0;
  const readOnly = path('read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  const openToAll = path('open-to-all');
  mkdirSync(openToAll);
  chmodSync(root, 0o755);
  chmodSync(openToAll, 0o777);

  const admin = new URL(adminUrl());
  const hostPort = `${admin.hostname}:${admin.port || '5432'}`;

  const cases: SettingRefusal[] = [
    {
      name: 'a database that does not exist',
      env: { DATABASE_URL: withCredentials('cogitave_settings_no_such_db') },
      code: 78,
      variable: 'DATABASE_URL',
      says: new RegExp(
        `database "cogitave_settings_no_such_db" does not exist on ${escape(hostPort)}; create it \\(createdb cogitave_settings_no_such_db\\) or point DATABASE_URL at an existing one`,
      ),
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a user the server does not know',
      env: { DATABASE_URL: withCredentials('postgres', 'cogitave_no_such_role') },
      code: 78,
      variable: 'DATABASE_URL',
      says: /refused user "cogitave_no_such_role"/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a server that does not answer',
      env: { DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:1/app` },
      code: 69,
      variable: 'DATABASE_URL',
      says: /no database server answers on 127\.0\.0\.1:1/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a host name that does not resolve',
      env: { DATABASE_URL: `postgres://postgres:${PASSWORD}@no-such-host.invalid:5432/app` },
      code: 69,
      variable: 'DATABASE_URL',
      says: /no-such-host\.invalid:5432 does not resolve/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a malformed database URL',
      env: { DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:99999/app` },
      code: 78,
      variable: 'DATABASE_URL',
      says: /must be a valid URL/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a data folder that is a file',
      env: { COGITAVE_DATA_DIR: path('a-file') },
      code: 78,
      variable: 'COGITAVE_DATA_DIR',
      says: /is a file, not a folder/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a data folder under a file',
      env: { COGITAVE_DATA_DIR: path('a-file', 'data') },
      code: 78,
      variable: 'COGITAVE_DATA_DIR',
      says: /\(on the way to .*\) is a file, not a folder/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a data folder this user may not write',
      env: { COGITAVE_DATA_DIR: join(readOnly, 'data'), COGITAVE_DIGEST_DIR: openToAll },
      code: 78,
      variable: 'COGITAVE_DATA_DIR',
      says: /is not writable by this user \(EACCES\)/,
      asNobody: true,
      skip:
        !canDropToNobody &&
        'needs root, setpriv and a checkout uid 65534 may read, to run the CLI as nobody (the read-only disk case covers the check)',
      endToEnd: true,
    },
    {
      name: 'a data folder on a read-only disk',
      env: { COGITAVE_DATA_DIR: join(readOnlyDisk, 'data') },
      code: 78,
      variable: 'COGITAVE_DATA_DIR',
      says: /is on a read-only file system \(EROFS\)/,
      skip: !mountedReadOnly && 'needs root and tmpfs to mount a read-only disk',
      endToEnd: true,
    },
    {
      name: 'a data folder on a full disk',
      env: { COGITAVE_DATA_DIR: join(tinyDisk, 'data') },
      code: 78,
      variable: 'COGITAVE_DATA_DIR',
      says: /only 1\.0 MB free on the disk/,
      skip:
        !mounted &&
        'needs root and tmpfs to mount a 1 MB disk (writable-folder.unit.test.ts covers the check)',
      endToEnd: true,
    },
    {
      name: 'a digests folder that is a file',
      env: { COGITAVE_DIGEST_DIR: path('a-file') },
      code: 78,
      variable: 'COGITAVE_DIGEST_DIR',
      says: /is a file, not a folder/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a token file that does not exist',
      env: { MCP_TOKENS_FILE: path('no-tokens.json') },
      code: 78,
      variable: 'MCP_TOKENS_FILE',
      says: /ENOENT/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a token file that is a folder',
      env: { MCP_TOKENS_FILE: path('empty-folder') },
      code: 78,
      variable: 'MCP_TOKENS_FILE',
      says: /EISDIR/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a token file that is not JSON',
      env: { MCP_TOKENS_FILE: path('tokens-not-json.json') },
      code: 78,
      variable: 'MCP_TOKENS_FILE',
      says: /as JSON/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a token file whose table is wrong',
      env: { MCP_TOKENS_FILE: path('tokens-bad-table.json') },
      code: 78,
      variable: 'MCP_TOKENS_FILE',
      says: /sha256 hex/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a signing key file that does not exist',
      env: { COGITAVE_DIGEST_SIGNING_KEY_FILE: path('no-key.pem') },
      code: 78,
      variable: 'COGITAVE_DIGEST_SIGNING_KEY_FILE',
      says: /cannot read/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a signing key file that holds no key',
      env: { COGITAVE_DIGEST_SIGNING_KEY_FILE: path('not-a-key.pem') },
      code: 78,
      variable: 'COGITAVE_DIGEST_SIGNING_KEY_FILE',
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a config file that does not exist',
      env: { COGITAVE_CONFIG_FILE: path('no-config.json') },
      code: 78,
      variable: 'COGITAVE_CONFIG_FILE',
      says: /cannot read/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a catalog folder that does not exist',
      env: { CATALOG_DIR: path('no-corpus') },
      code: 78,
      variable: 'CATALOG_DIR',
      says: /is not a folder \(it does not exist\)/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a GitHub App key that is no key',
      env: {
        GITHUB_REPOSITORY: 'acme/catalog',
        GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
        GITHUB_APP_ID: '1',
        GITHUB_APP_INSTALLATION_ID: '2',
        GITHUB_APP_PRIVATE_KEY: FRAMED_NON_KEY,
      },
      code: 78,
      variable: 'GITHUB_APP_PRIVATE_KEY',
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a public bind without tokens',
      env: { COGITAVE_HTTP_HOST: '0.0.0.0' },
      code: 78,
      variable: 'MCP_TOKENS',
      says: /not a loopback address/,
      skip: false,
      endToEnd: true,
    },
    {
      name: 'a split role on the embedded database',
      env: {},
      args: ['--role', 'gateway'],
      code: 78,
      variable: 'DATABASE_URL',
      says: /--role gateway needs a server Postgres/,
      skip: false,
      endToEnd: false,
    },
    {
      name: 'a value out of range',
      env: { COGITAVE_HTTP_PORT: '70000' },
      code: 78,
      variable: 'COGITAVE_HTTP_PORT',
      skip: false,
      endToEnd: false,
    },
  ];

  return {
    root,
    cases,
    secrets: [PASSWORD, CONSOLE_SECRET, WEBHOOK_SECRET, KEY_BODY],
    password: PASSWORD,
    reachableUrl: withCredentials(admin.pathname.replace(/^\//, '') || 'postgres'),
    baseEnv: () => ({
      COGITAVE_DATA_DIR: mkdtempSync(join(root, 'data-')),
      COGITAVE_DIGEST_DIR: mkdtempSync(join(root, 'digests-')),
      COGITAVE_HTTP_PORT: '0',
      CATALOG_DIR: 'none',
      COGITAVE_CONSOLE_SECRET: CONSOLE_SECRET,
    }),
    cleanup: () => {
      if (mounted) spawnSync('umount', [tinyDisk]);
      if (mountedReadOnly) spawnSync('umount', [readOnlyDisk]);
      rmSync(root, { recursive: true, force: true });
    },
  };
};
