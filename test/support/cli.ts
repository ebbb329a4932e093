import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the real CLI from source (built once per test run, see `CliProgram`) in a child process
 * with an environment the test controls: every Cogitave setting of the parent is removed first,
 * so a developer's shell cannot change what a test sees.
 */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const SETTING_VARIABLES = new Set([
  'DATABASE_URL',
  'EVENTSTORE_URL',
  'LOG_LEVEL',
  'COGITAVE_CONFIG_FILE',
]);

export const cliEnv = (overrides: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (SETTING_VARIABLES.has(key) || key.startsWith('COGITAVE_')) continue;
    env[key] = value;
  }
  // The shipped corpus's start-up ingest compiles its samples (seconds of CPU per fresh data
  // folder); tests that want the catalog say so with CATALOG_DIR. Digests go to a folder of
  // this environment's own: the default (.cogitave/digests) would mix every test's logs.
  return {
    ...env,
    CATALOG_DIR: 'none',
    COGITAVE_DIGEST_DIR: mkdtempSync(join(tmpdir(), 'cogitave-test-digests-')),
    ...overrides,
  };
};

export interface CliResult {
  /** null when the process ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<CliResult>;
  /** Resolves with the first stderr JSON log line matching `predicate`. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves once stdout holds at least `count` lines. */
  waitForStdoutLines(count: number, timeoutMs: number): Promise<string[]>;
  /** The stderr lines that parse as JSON objects (the structured logs). */
  logs(): Record<string, unknown>[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const parseJsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return isRecord(value) ? [value] : [];
      } catch {
        return [];
      }
    });

export const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

/**
 * Which program runs: the sources — as built once for this test run (test/support/build-once.ts
 * names the build in TEST_CLI_BUILD), or through tsx where no run built them (a script) — or
 * the build in `dist/` as `npm start` runs it (benchmarks: what an operator runs; build it
 * first).
 */
export type CliProgram = 'source' | 'build';

/**
 * Node's arguments to run one of the product's entries (`bin/cogitave.ts`,
 * `bin/cogitave-stdio.ts`) from source: the run's build when there is one, else through tsx.
 */
export const sourceEntry = (entry: `bin/${string}.ts`): string[] => {
  const built = process.env.TEST_CLI_BUILD;
  if (!built) return ['--import', 'tsx', entry];
  return [join(dirname(dirname(built)), entry.replace(/\.ts$/, '.js'))];
};

const programArgs = (program: CliProgram): readonly string[] =>
  program === 'build' ? ['dist/bin/cogitave.js'] : sourceEntry('bin/cogitave.ts');

export const spawnCli = (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  program: CliProgram = 'source',
): RunningCli => {
  const started = Date.now();
  const child = spawn(process.execPath, [...programArgs(program), ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    changed();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    changed();
  });
  let result: CliResult | undefined;
  const exited = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      result = { code, signal, stdout, stderr, durationMs: Date.now() - started };
      changed();
      resolve(result);
    });
  });

  /** Waits until `check` returns a value, the process exits, or the time runs out. */
  const waitFor = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          finish();
          resolve(value);
        } else if (result) {
          finish();
          reject(
            new Error(
              `cogitave ${args.join(' ')} exited (code ${result.code}, signal ${result.signal}) before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        listeners.delete(attempt);
      };
      listeners.add(attempt);
      attempt();
    });

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    logs: () => parseJsonLines(stderr),
    waitForLog: (predicate, timeoutMs) =>
      waitFor(() => parseJsonLines(stderr).find(predicate), timeoutMs, 'the expected log line'),
    waitForStdoutLines: (count, timeoutMs) =>
      waitFor(
        () => {
          const complete = lines(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
          return complete.length >= count ? complete : undefined;
        },
        timeoutMs,
        `${count} stdout lines`,
      ),
  };
};

/** Runs the CLI to completion; a process still running after `timeoutMs` is killed. */
export const runCli = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  program: CliProgram = 'source',
): Promise<CliResult> => {
  const running = spawnCli(args, env, program);
  const timer = setTimeout(() => {
    running.child.kill('SIGKILL');
  }, timeoutMs);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
};

/** Ends a process the test started, if it is still running, and waits for it. */
export const stopCli = async (running: RunningCli | undefined): Promise<void> => {
  if (!running) return;
  if (running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill('SIGKILL');
  }
  await running.exited;
};
