import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot, sourceEntry } from '../../support/cli.js';

/**
 * `cogitave serve --stdio` driven by hand: newline-delimited JSON-RPC written to its stdin
 * and read from its stdout, so a test sees the exact bytes, can close stdin when it chooses
 * and reads the exit code (the SDK clients hide both).
 */
export interface StdioSession {
  readonly child: ChildProcess;
  readonly startedAt: number;
  /** Sends a request and resolves with its response (result or error). */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** The 2025-11-25 handshake. */
  initialize(): Promise<Record<string, unknown>>;
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  stderr(): string;
  /** Resolves once stderr contains `text`; the time it took from spawn. */
  waitForStderr(text: string, timeoutMs: number): Promise<number>;
  /** Closes stdin, as a client that is done does. */
  endInput(): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
}

/** How the session is started: the CLI's `serve --stdio`, or the stdio entry .mcp.json runs. */
export const SERVE_STDIO: readonly string[] = [
  ...sourceEntry('bin/cogitave.ts'),
  'serve',
  '--stdio',
];
export const STDIO_ENTRY: readonly string[] = sourceEntry('bin/cogitave-stdio.ts');

export const startStdioSession = (
  env: NodeJS.ProcessEnv,
  program: readonly string[] = SERVE_STDIO,
): StdioSession => {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...program], {
    cwd: repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let pendingLine = '';
  let nextId = 1;
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const stderrWatchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    pendingLine += chunk;
    const lines = pendingLine.split('\n');
    pendingLine = lines.pop() ?? '';
    for (const line of lines) {
      // Every stdout line must be one JSON-RPC message: anything else fails here.
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const watcher of stderrWatchers) watcher();
  });
  // Writing to a process that has already gone must not crash the test runner.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
  }>((resolve) => {
    child.on('close', (code, signal) => {
      for (const watcher of stderrWatchers) watcher();
      resolve({ code, signal, stdout });
    });
  });
  const send = (message: Record<string, unknown>): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  const request = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        reject(new Error(`no answer to ${method} within 60 s\nstderr:\n${stderr}`));
      }, 60_000);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      send({ id, method, params });
    });
  const session: StdioSession = {
    child,
    startedAt,
    request,
    notify: (method, params = {}) => {
      send({ method, params });
    },
    initialize: async () => {
      const answer = await request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'e2e-raw-stdio', version: '1.0.0' },
      });
      session.notify('notifications/initialized');
      return answer;
    },
    callTool: async (name, args) => {
      const answer = await request('tools/call', { name, arguments: args });
      if (answer.error) throw new Error(`${name} failed: ${JSON.stringify(answer.error)}`);
      return answer.result as Record<string, unknown>;
    },
    stderr: () => stderr,
    waitForStderr: (text, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        const check = (): void => {
          if (stderr.includes(text)) {
            done();
            resolve(Date.now() - startedAt);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`serve --stdio exited before saying "${text}"\nstderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for "${text}"\nstderr:\n${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          stderrWatchers.delete(check);
        };
        stderrWatchers.add(check);
        check();
      }),
    endInput: () => {
      child.stdin.end();
    },
    exited,
  };
  return session;
};
