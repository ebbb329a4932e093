import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * One `cogitave serve --http --role <role>` child process, run from source. Its JSON log lines
 * (stderr) are handed to `onLine` and the last ones kept for diagnostics; `started` resolves
 * with the `cogitave ready` line, or rejects if the process exits or stays silent too long.
 */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export type ServeRole = 'all' | 'gateway' | 'projector' | 'reactor';

export interface ServeProcess {
  readonly name: string;
  readonly role: ServeRole;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  /** The newest log lines (stderr), oldest first. */
  recentLogs(): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface StartServeOptions {
  readonly name: string;
  readonly role: ServeRole;
  readonly env: NodeJS.ProcessEnv;
  readonly onLine?: (name: string, line: string) => void;
  readonly readyTimeoutMs?: number;
}

export interface StartedServe {
  readonly process: ServeProcess;
  /** The `cogitave ready` log line (its `url`, `mcp`, …). */
  readonly ready: Record<string, unknown>;
  readonly url: string;
}

const KEEP_LINES = 200;

const parseLine = (line: string): Record<string, unknown> | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

export const startServe = (options: StartServeOptions): Promise<StartedServe> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bin/cogitave.ts', 'serve', '--http', '--role', options.role],
    { cwd: repoRoot, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const recent: string[] = [];
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      resolve(code);
    });
  });
  const stop = async (graceMs = 10_000): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      timer.unref();
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return exited;
  };
  const served: ServeProcess = {
    name: options.name,
    role: options.role,
    child,
    exited,
    recentLogs: () => [...recent],
    stop,
  };
  return new Promise<StartedServe>((resolve, reject) => {
    let settled = false;
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      fail(`was not ready within ${String(timeoutMs)} ms`);
    }, timeoutMs);
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop(1000);
      reject(
        new Error(`${options.name} (serve --role ${options.role}) ${why}:\n${recent.join('\n')}`),
      );
    };
    createInterface({ input: child.stderr }).on('line', (line) => {
      recent.push(line);
      if (recent.length > KEEP_LINES) recent.shift();
      options.onLine?.(options.name, line);
      const parsed = parseLine(line);
      if (!settled && parsed?.msg === 'cogitave ready' && typeof parsed.url === 'string') {
        settled = true;
        clearTimeout(timer);
        resolve({ process: served, ready: parsed, url: parsed.url });
      }
    });
    void exited.then((code) => {
      fail(`exited with code ${String(code)} before it was ready`);
    });
  });
};
