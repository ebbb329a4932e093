import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const script = fileURLToPath(new URL('./projector.ts', import.meta.url));

/** One stdout line of the projector process (see projector.ts). */
export interface ProjectorLine {
  readonly batch?: { events: number; position: string; applied: number; ms: number };
  readonly status?: { state: string; leader: boolean; position: string | null };
  readonly exit?: string;
}

export interface Projector {
  readonly child: ChildProcess;
  readonly name: string;
  lines(): ProjectorLine[];
  stderr(): string;
  /** Resolves with the first line matching `predicate`; rejects on exit or timeout. */
  waitFor(predicate: (line: ProjectorLine) => boolean, timeoutMs: number): Promise<ProjectorLine>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts projector.ts in a child process. Its connections (pool, lock, LISTEN) carry
 * `application_name=<name>` from the URL, so a test can wait until a killed projector's
 * sessions are gone.
 */
export const spawnProjector = (databaseUrl: string, name: string): Projector => {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: repoRoot,
    env: { ...process.env, PROJECTOR_DATABASE_URL: url.toString() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const parsed: ProjectorLine[] = [];
  let partial = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (line.trim()) parsed.push(JSON.parse(line) as ProjectorLine);
    }
    for (const listener of [...listeners]) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      ended = true;
      for (const listener of [...listeners]) listener();
      resolve({ code, signal });
    });
  });
  return {
    child,
    name,
    lines: () => parsed,
    stderr: () => stderr,
    exited,
    waitFor: (predicate, timeoutMs) =>
      new Promise((resolve, reject) => {
        let seen = 0;
        const check = (): void => {
          for (; seen < parsed.length; seen += 1) {
            const line = parsed[seen]!;
            if (predicate(line)) {
              finish();
              resolve(line);
              return;
            }
          }
          if (ended) {
            finish();
            reject(new Error(`projector ${name} exited before the expected line\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(`projector ${name}: no expected line within ${timeoutMs} ms\n${stderr}`),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
};

/** SIGKILL (kill -9), then wait for the process to be gone. */
export const killHard = async (projector: Projector): Promise<void> => {
  if (projector.child.exitCode === null && projector.child.signalCode === null) {
    projector.child.kill('SIGKILL');
  }
  await projector.exited;
};

/**
 * Waits until the database has no session left of a (killed) projector: until then a
 * transaction it sent could still commit, and the lock could still be held.
 */
export const waitForSessionsGone = async (
  pool: pg.Pool,
  name: string,
  timeoutMs = 10_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1`,
      [name],
    );
    if (result.rows[0]?.n === '0') return;
    if (Date.now() > deadline)
      throw new Error(`sessions of ${name} still open after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
