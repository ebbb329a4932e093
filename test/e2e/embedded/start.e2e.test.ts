import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli, spawnCli, stopCli, type RunningCli } from '../../support/cli.js';
import { callTool, connectAgent, READY_TIMEOUT_MS } from './support.js';

/**
 * `cogitave serve` as a person starts it: a taken port or a wrong CATALOG_DIR is a
 * configuration error before anything is opened; "ready" means the tools can answer; the ready
 * line says what to do next; logs are JSON off a terminal and pretty when asked.
 */
const folders: string[] = [];
const folder = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
};
let running: RunningCli | undefined;

afterEach(async () => {
  await stopCli(running);
  running = undefined;
});
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const listen = (port = 0): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve(server);
    });
  });
const portOf = (server: Server): number => (server.address() as { port: number }).port;
const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
  });

/** A free port now (taken and given back), for a test that must know it before the start. */
const freePort = async (): Promise<number> => {
  const server = await listen();
  const port = portOf(server);
  await close(server);
  return port;
};

/** A small documentation folder: two pages about exporting audit trails. */
const docsFolder = (): string => {
  const dir = folder('cogitave-start-docs-');
  mkdirSync(join(dir, 'guides'));
  writeFileSync(
    join(dir, 'guides', 'export.md'),
    '---\ntitle: Export audit trails\n---\n\n# Export audit trails\n\nAuditors export the audit trail of every request as CSV from the command line.\n',
  );
  writeFileSync(
    join(dir, 'index.md'),
    '---\ntitle: Welcome\n---\n\n# Welcome\n\nStart with [exporting audit trails](guides/export.md).\n',
  );
  return dir;
};

describe('cogitave serve start-up on the embedded default', () => {
  it('given the port is taken, when served, then exit 73 names COGITAVE_HTTP_PORT and nothing was opened or migrated', async () => {
    const taken = await listen();
    try {
      const dataDir = join(folder('cogitave-start-port-'), 'data');
      const result = await runCli(
        ['serve'],
        cliEnv({ COGITAVE_DATA_DIR: dataDir, COGITAVE_HTTP_PORT: String(portOf(taken)) }),
      );

      expect(result.code, result.stderr).toBe(73);
      expect(result.stderr).toContain(
        `Port ${String(portOf(taken))} on 127.0.0.1 is already in use`,
      );
      expect(result.stderr).toContain('COGITAVE_HTTP_PORT');
      expect(result.stderr).not.toContain('migration applied');
      expect(() => readdirSync(dataDir)).toThrow();
    } finally {
      await close(taken);
    }
  });

  it('given CATALOG_DIR names a file, when served, then exit 78 names CATALOG_DIR before anything is opened', async () => {
    const dir = folder('cogitave-start-catalog-');
    const file = join(dir, 'not-a-folder.md');
    writeFileSync(file, '# Not a folder\n');
    const result = await runCli(
      ['serve'],
      cliEnv({
        COGITAVE_DATA_DIR: join(dir, 'data'),
        COGITAVE_HTTP_PORT: '0',
        CATALOG_DIR: file,
      }),
    );

    expect(result.code, result.stderr).toBe(78);
    expect(result.stderr).toContain(`CATALOG_DIR: ${file} is not a folder`);
    expect(() => readdirSync(join(dir, 'data'))).toThrow();
  });

  it('given a catalog to ingest, when an agent searches before the server is ready, then the search waits and finds it; ready comes after the catalog and the index, with the next steps', async () => {
    const port = await freePort();
    const env = cliEnv({
      COGITAVE_DATA_DIR: join(folder('cogitave-start-ready-'), 'data'),
      COGITAVE_HTTP_PORT: String(port),
      CATALOG_DIR: docsFolder(),
    });
    running = spawnCli(['serve'], env);
    const url = `http://127.0.0.1:${String(port)}`;
    // As early as the endpoint answers: /readyz, then a search, before the ready line.
    const early: { status: number; body: unknown }[] = [];
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      try {
        const response = await fetch(`${url}/readyz`);
        early.push({ status: response.status, body: await response.json() });
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`no answer on ${url}: ${running.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const agent = await connectAgent(url, 'early-agent');
    const found = await callTool(
      agent,
      'docs_search',
      { query: 'export audit trail', limit: 5 },
      60_000,
    );
    const ready = await running.waitForLog(
      (line) => line.msg === 'cogitave ready',
      READY_TIMEOUT_MS,
    );
    await agent.close();

    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect((found.structuredContent?.results as unknown[]).length).toBeGreaterThan(0);
    // Before ready, /readyz says what is still starting; from ready on, it is 200.
    for (const answer of early.filter((a) => a.status !== 200)) {
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toContain('still starting');
    }
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const logs = running.logs().map((line) => line.msg);
    expect(logs.indexOf('search index built')).toBeLessThan(logs.indexOf('cogitave ready'));
    expect(ready.next).toEqual([
      expect.stringContaining(`Connect an MCP client to ${url}/mcp`),
      expect.stringContaining('proposals approve <proposalId> --as'),
    ]);
  });

  it('given LOG_FORMAT=pretty, when served, then stderr carries readable lines, not JSON', async () => {
    running = spawnCli(
      ['serve'],
      cliEnv({
        COGITAVE_DATA_DIR: join(folder('cogitave-start-pretty-'), 'data'),
        COGITAVE_HTTP_PORT: '0',
        LOG_FORMAT: 'pretty',
      }),
    );
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!running.stderr().includes('cogitave ready') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stderr = running.stderr();

    expect(stderr).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: cogitave ready$/m);
    expect(stderr).toContain('next: [');
    expect(running.logs()).toEqual([]);
  });
});
