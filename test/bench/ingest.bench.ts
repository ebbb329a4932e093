/**
 * `npm run bench:ingest`: `cogitave ingest` of a 200-page site on the embedded default (no
 * DATABASE_URL), timed as a person waits for it: the built CLI from process start to exit,
 * with its peak resident memory. The site is built in a temporary folder from two real
 * fixture sites (FastAPI's MkDocs pages, Vite's VitePress pages beside them). Runs:
 *
 * - baselines: `node -e ''` (a process start) and a process that reads every file of the site;
 * - a new data folder, no template cached: initdb runs (the first ingest on a machine);
 * - a new data folder, template cached (every later new folder);
 * - the same folder again, nothing changed.
 *
 * Each BENCH_RUNS times (default 3), the median shown. Target (the issue): ≤ 6 s wall and
 * ≤ 400 MB peak resident on a quiet two-core machine. The machine's load is printed: a busy
 * machine stretches wall time, so compare with the baselines of the same run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../support/cli.js';
import { recordFigures } from './figures.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_SECONDS = 6;
const TARGET_MB = 400;
const CLI = join(repoRoot, 'dist', 'bin', 'cogitave.js');
const TIME = '/usr/bin/time';

interface Measure {
  readonly seconds: number;
  /** User + system CPU seconds: what a busy machine does not stretch. */
  readonly cpu: number;
  readonly mb: number;
  readonly output: string;
}

/** Wall time and peak RSS of one command, through GNU time (its `%M` is the peak in KB). */
const measure = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<Measure> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-f', '@@peak %M %U %S', process.execPath, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const [, peak, user, system] = /@@peak (\d+) ([\d.]+) ([\d.]+)/.exec(errors) ?? [];
      if (code !== 0 || peak === undefined) {
        reject(new Error(`${args.join(' ')} exited ${String(code)}:\n${errors}`));
        return;
      }
      resolve({ seconds, cpu: Number(user) + Number(system), mb: Number(peak) / 1024, output });
    });
  });

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const countPages = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).filter(
    (entry) => entry.isFile() && /\.mdx?$/i.test(entry.name),
  ).length;

/** FastAPI's site (its mkdocs.yml at the root) with Vite's pages in a folder of its docs. */
const buildSite = (into: string): string => {
  const site = join(into, 'site');
  cpSync(join(repoRoot, 'test/fixtures/docs-sites/fastapi/docs/en'), site, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/docs-sites/vite/docs'), join(site, 'docs', 'vite'), {
    recursive: true,
  });
  return site;
};

const READ_ALL = `const fs=require('node:fs');let n=0;for(const e of fs.readdirSync(process.argv[1],{recursive:true,withFileTypes:true}))if(e.isFile())n+=fs.readFileSync(require('node:path').join(e.parentPath??e.path,e.name)).length;`;

const main = async (): Promise<void> => {
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing (apt-get install -y time)`);
  execFileSync(process.execPath, [join(repoRoot, 'scripts/build-if-stale.mjs'), '--quiet'], {
    stdio: 'inherit',
  });
  const work = mkdtempSync(join(tmpdir(), 'cogitave-bench-ingest-'));
  try {
    const site = buildSite(work);
    // The embedded default: no DATABASE_URL; the template cache is the run's own.
    const env = (dataDir: string, cacheDir: string): NodeJS.ProcessEnv => {
      const embedded: NodeJS.ProcessEnv = {
        ...process.env,
        COGITAVE_DATA_DIR: dataDir,
        COGITAVE_CACHE_DIR: cacheDir,
      };
      delete embedded.DATABASE_URL;
      return embedded;
    };
    const ingest = [CLI, 'ingest', site, '--yes'];
    const rows = new Map<string, Measure[]>();
    const add = (name: string, result: Measure): void => {
      rows.set(name, [...(rows.get(name) ?? []), result]);
    };
    for (let run = 0; run < RUNS; run += 1) {
      const cache = join(work, `cache-${run}`);
      add("baseline: node -e ''", await measure(['-e', ''], process.env));
      add(
        'baseline: read every file of the site',
        await measure(['-e', READ_ALL, site], process.env),
      );
      add(
        'new data folder, no template (initdb)',
        await measure(ingest, env(join(work, `a${run}`), cache)),
      );
      add(
        'new data folder, template cached',
        await measure(ingest, env(join(work, `b${run}`), cache)),
      );
      add('same folder again, unchanged', await measure(ingest, env(join(work, `b${run}`), cache)));
    }
    const last = rows.get('new data folder, template cached')?.at(-1)?.output ?? '';
    process.stdout.write(
      `## cogitave ingest, ${countPages(site)}-page site, embedded PGlite\n\n` +
        `load average at the end ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; ${RUNS} run(s), median\n\n` +
        `| run | wall s | CPU s | peak RSS MB | target |\n| --- | ---: | ---: | ---: | --- |\n`,
    );
    for (const [name, results] of rows) {
      const seconds = median(results.map((r) => r.seconds));
      const mb = median(results.map((r) => r.mb));
      const cpu = median(results.map((r) => r.cpu));
      const targeted = name.startsWith('new data folder, template') || name.startsWith('same');
      const met = seconds <= TARGET_SECONDS && mb <= TARGET_MB;
      process.stdout.write(
        `| ${name} | ${seconds.toFixed(2)} | ${cpu.toFixed(2)} | ${mb.toFixed(0)} | ${targeted ? `≤ ${TARGET_SECONDS} s, ≤ ${TARGET_MB} MB: ${met ? 'met' : 'not met'}` : ''} |\n`,
      );
      if (targeted) {
        recordFigures([
          {
            bench: 'bench:ingest',
            figure: `ingest 200 pages, ${name}: wall`,
            value: seconds,
            unit: 's',
            target: `≤ ${TARGET_SECONDS} s`,
            met: seconds <= TARGET_SECONDS,
          },
          {
            bench: 'bench:ingest',
            figure: `ingest 200 pages, ${name}: peak RSS`,
            value: mb,
            unit: 'MB',
            target: `≤ ${TARGET_MB} MB`,
            met: mb <= TARGET_MB,
          },
        ]);
      }
    }
    process.stdout.write(
      `\nThe CLI's own account (last run, template cached):\n\n\`\`\`\n${last
        .split('\n')
        .filter((line) => /^(ingested|time:)/.test(line))
        .join('\n')}\n\`\`\`\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

await main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
