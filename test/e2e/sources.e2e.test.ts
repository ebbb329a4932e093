import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_SOURCE } from '../../services/catalog/sources.js';
import {
  cliEnv,
  repoRoot,
  runCli,
  spawnCli,
  stopCli,
  type RunningCli,
  sourceEntry,
} from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';

/**
 * A user's documents next to the shipped corpus, as an operator meets them: `cogitave ingest`
 * of a real site, then `cogitave serve` with the default catalog (which ingests the shipped
 * corpus as its own source), another folder ingested, a restart. The user's pages stay
 * through all of it, on the embedded default and on server Postgres.
 */
const SITE = join(repoRoot, 'test/fixtures/docs-sites/vite/docs');
// The first start type-checks the shipped corpus's samples: a while on a busy machine.
const CATALOG_TIMEOUT_MS = 180_000;

interface SourceLine {
  readonly name: string;
  readonly pages: number;
  readonly nodes: number;
}

const sources = async (env: NodeJS.ProcessEnv): Promise<SourceLine[]> => {
  const listed = await runCli(['sources', 'list', '--json'], env, 60_000);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { sources: SourceLine[] }).sources;
};

const ingest = async (
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ source: string; pages: number; retired: number }> => {
  const run = await runCli(['ingest', dir, '--no-check-samples', '--json'], env, 120_000);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { source: string; pages: number; retired: number };
};

const UNCHANGED =
  'catalog unchanged since its last ingest (same files, settings and code): nothing read';

/** serve with the default catalog until its start-up ingest is logged. */
const serveWithCatalog = async (
  env: NodeJS.ProcessEnv,
): Promise<{ running: RunningCli; ingested: Record<string, unknown> }> => {
  const running = spawnCli(['serve'], env);
  const ingested = await running.waitForLog(
    (line) =>
      line.msg === 'catalog ingested' ||
      line.msg === UNCHANGED ||
      line.msg === 'catalog start-up ingest failed; nothing was appended',
    CATALOG_TIMEOUT_MS,
  );
  return { running, ingested };
};

const describeSources = (
  name: string,
  environment: () => Promise<{ env: NodeJS.ProcessEnv; cleanup: () => Promise<void> }>,
): void => {
  describe(`a user's sources beside the shipped corpus (${name})`, () => {
    let env: NodeJS.ProcessEnv;
    let cleanup: () => Promise<void> = () => Promise.resolve();
    let running: RunningCli | undefined;
    const other = mkdtempSync(join(tmpdir(), 'cogitave-notes-'));

    beforeAll(async () => {
      ({ env, cleanup } = await environment());
      // serve's own catalog: the shipped corpus (the test helpers turn it off by default).
      delete env.CATALOG_DIR;
      writeFileSync(join(other, 'index.md'), '# Team notes\n\nHow we release.\n');
    });
    afterEach(async () => {
      await stopCli(running);
      running = undefined;
    });
    afterAll(async () => {
      await cleanup();
      rmSync(other, { recursive: true, force: true });
    });

    it('given a site ingested by the CLI, when serve starts with the default catalog, then it ingests the shipped corpus as its own source and retires none of the site’s pages', async () => {
      const site = await ingest(SITE, env);
      expect(site).toMatchObject({ source: 'vite', retired: 0 });
      expect(site.pages).toBeGreaterThan(30);

      const served = await serveWithCatalog(env);
      running = served.running;
      expect(served.ingested).toMatchObject({
        msg: 'catalog ingested',
        source: SHIPPED_SOURCE,
        retired: 0,
      });
      expect(served.ingested.published).toBeGreaterThan(20);
      // While serve owns the database, the CLI reaches it through serve.
      const listed = await sources(env);
      expect(listed.find((s) => s.name === 'vite')).toMatchObject({ pages: site.pages });
      expect(listed.find((s) => s.name === SHIPPED_SOURCE)?.pages).toBeGreaterThan(20);
    });

    it('given a second folder ingested while serve runs, then the first site keeps its pages', async () => {
      running = (await serveWithCatalog(env)).running;
      const notes = await ingest(other, env);
      expect(notes).toMatchObject({ retired: 0, pages: 1 });
      const listed = await sources(env);
      expect(listed.map((s) => s.name)).toEqual(
        expect.arrayContaining([SHIPPED_SOURCE, 'vite', notes.source]),
      );
      expect(listed.find((s) => s.name === 'vite')?.pages).toBeGreaterThan(30);
    });

    it('given a restart, when the unchanged shipped corpus is ingested again, then it is not even read, and nothing is retired or appended', async () => {
      const served = await serveWithCatalog(env);
      running = served.running;
      expect(served.ingested).toMatchObject({
        msg: UNCHANGED,
        source: SHIPPED_SOURCE,
        published: 0,
        revised: 0,
        retired: 0,
      });
      const listed = await sources(env);
      expect(listed.find((s) => s.name === 'vite')?.pages).toBeGreaterThan(30);
    });
  });
};

describeSources('embedded PGlite', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-sources-'));
  return Promise.resolve({
    env: cliEnv({ COGITAVE_DATA_DIR: dataDir, COGITAVE_HTTP_PORT: '0' }),
    cleanup: () => {
      rmSync(dataDir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});

describeSources('server Postgres', async () => {
  const db: ThrowawayDatabase = await createThrowawayDatabase('e2e_sources');
  return {
    env: cliEnv({ DATABASE_URL: db.url, COGITAVE_HTTP_PORT: '0' }),
    cleanup: () => db.drop(),
  };
});

/** Runs the CLI in a pseudo-terminal (util-linux `script`), answering its question. */
const inTerminal = (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  answer: string,
): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const command = [process.execPath, ...sourceEntry('bin/cogitave.ts'), ...args].join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: repoRoot, env });
    let output = '';
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer in time; the terminal showed:\n${output}`));
    }, 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!answered && output.includes('Continue? [y/N]')) {
        answered = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

describe('retiring more than a few pages (embedded PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-retire-'));
  const site = mkdtempSync(join(tmpdir(), 'cogitave-handbook-'));
  const env = cliEnv({ COGITAVE_DATA_DIR: dataDir });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(site, { recursive: true, force: true });
  });

  it('given a terminal, when the question is answered no, then nothing is retired; without a terminal the removal goes ahead and says so', async () => {
    writeFileSync(join(site, 'index.md'), '# Handbook\n');
    for (let i = 1; i <= 7; i += 1) writeFileSync(join(site, `page-${i}.md`), `# Page ${i}\n`);
    const first = await ingest(site, env);
    expect(first.pages).toBe(8);
    for (let i = 1; i <= 7; i += 1) unlinkSync(join(site, `page-${i}.md`));

    const declined = await inTerminal(['ingest', site, '--no-check-samples'], env, 'n');
    expect(declined.output).toContain(`This retires 7 page(s) of source ${first.source}`);
    expect(declined.output).toContain('nothing was appended: the retirement was not confirmed');
    expect((await sources(env)).find((s) => s.name === first.source)?.pages).toBe(8);

    const removed = await runCli(['sources', 'remove', first.source], env, 60_000);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`retired 8 nodes (8 pages) of source ${first.source}`);
    expect(removed.stderr).toContain(
      `note: retired 8 pages of source ${first.source} without asking: not an interactive terminal`,
    );
    expect((await sources(env)).map((s) => s.name)).not.toContain(first.source);
  });
});
