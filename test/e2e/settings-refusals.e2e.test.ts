import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, lines, repoRoot, sourceEntry } from '../support/cli.js';
import { settingRefusalFixtures } from '../support/setting-refusals.js';

/**
 * A refused setting, as a person meets it on the real CLI: `serve` and `cogitave config` exit
 * with the same code (78, or 69 when the database server does not answer) and the same one
 * line on stderr naming the variable, with no stack and no secret. Every process ends before
 * opening a database; one case per kind of failure runs here (each spawn costs seconds of
 * CPU), every case runs in process in test/int/cli/preflight.int.test.ts.
 */
const fixtures = settingRefusalFixtures();
afterAll(() => {
  fixtures.cleanup();
});

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];

/** The CLI from source, as this user or as nobody; killed if it hangs (a refusal is quick). */
const run = (args: readonly string[], env: NodeJS.ProcessEnv, asNobody = false): Promise<Result> =>
  new Promise((resolve) => {
    // The run's build folder is this user's only (mkdtemp, 0700): nobody runs the sources by tsx.
    const entry = asNobody
      ? ['--import', 'tsx', 'bin/cogitave.ts']
      : sourceEntry('bin/cogitave.ts');
    const command = [process.execPath, ...entry, ...args];
    const [file = process.execPath, ...rest] = asNobody ? [...NOBODY, ...command] : command;
    const child = spawn(file, rest, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

const envOf = (overrides: Record<string, string>): NodeJS.ProcessEnv =>
  cliEnv({ ...fixtures.baseEnv(), ...overrides });

describe.concurrent('a refused setting on the command line', () => {
  for (const refusal of fixtures.cases.filter((c) => c.endToEnd)) {
    const title = `given ${refusal.name}, when cogitave serve and cogitave config run, then both exit ${refusal.code} with the same one line naming ${refusal.variable}`;
    // A case that cannot run here says why in its title.
    const test = refusal.skip ? it.skip : it;
    test(refusal.skip ? `${title} (skipped: ${refusal.skip})` : title, async () => {
      const env = envOf(refusal.env);
      const [serve, config] = await Promise.all(
        (['serve', 'config'] as const).map((command) =>
          run([command, ...(refusal.args ?? [])], env, refusal.asNobody),
        ),
      );

      for (const result of [serve, config]) {
        expect(result?.code, result?.stderr).toBe(refusal.code);
        const stderr = lines(result?.stderr ?? '');
        expect(stderr, result?.stderr).toHaveLength(1);
        expect(result?.stderr).not.toMatch(/^\s+at /m);
        expect(stderr[0]).toMatch(new RegExp(`^error: ${refusal.variable}: `));
        if (refusal.says) expect(stderr[0]).toMatch(refusal.says);
        expect(result?.stdout).toBe('');
        for (const secret of fixtures.secrets) expect(result?.stderr).not.toContain(secret);
      }
      expect(config?.stderr).toBe(serve?.stderr);
    });
  }
});

describe.concurrent('cogitave config on settings serve accepts', () => {
  it('given a reachable DATABASE_URL, when cogitave config runs, then it exits 0 and prints the table with the password and secrets hidden', async () => {
    const result = await run(['config'], envOf({ DATABASE_URL: fixtures.reachableUrl }));

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^DATABASE_URL=postgres:\/\/postgres:\*\*\*@/m);
    expect(result.stdout).toMatch(/^COGITAVE_CONSOLE_SECRET=\[redacted\]$/m);
    for (const secret of fixtures.secrets) expect(result.stdout).not.toContain(secret);
  });

  it('given an unreachable DATABASE_URL and --no-check-connections, when cogitave config runs, then it exits 0 without opening a session', async () => {
    const result = await run(
      ['config', '--no-check-connections', '--json'],
      envOf({ DATABASE_URL: `postgres://postgres:${fixtures.password}@127.0.0.1:1/app` }),
    );

    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { env: string; value: unknown }[];
    expect(rows.find((row) => row.env === 'DATABASE_URL')?.value).toBe(
      'postgres://postgres:***@127.0.0.1:1/app',
    );
  });

  it('given an embedded data folder that does not exist yet, when cogitave config runs, then it exits 0 and creates nothing', async () => {
    const dataDir = join(fixtures.root, 'not-yet', 'data');
    const result = await run(['config'], envOf({ COGITAVE_DATA_DIR: dataDir }));

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`COGITAVE_DATA_DIR=${dataDir}\n`);
    expect(existsSync(join(fixtures.root, 'not-yet'))).toBe(false);
  });
});
