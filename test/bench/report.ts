/**
 * `npm run bench`: runs every benchmark script of the project, one after the other (they would
 * disturb each other in parallel), and writes one Markdown report: a table of every headline
 * figure with its baseline, ratio and target, the machine, then each script's own output.
 *
 * Environment: BENCH_REPORT (output file, default `bench-report.md`), BENCH_ONLY (comma list of
 * script names to run, e.g. `bench:append,bench:lag`), BENCH_QUICK=1 (short settings, for a
 * smoke run; figures are then indicative only). Each script's own knobs pass through.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { FIGURES_FILE_ENV, type BenchFigure } from './figures.js';

interface BenchScript {
  readonly script: string;
  /** Extra environment for a quick run. */
  readonly quick: Readonly<Record<string, string>>;
}

/** Every benchmark, in the order they run. Add a new one here (and to package.json). */
const BENCHES: readonly BenchScript[] = [
  { script: 'bench:append', quick: { BENCH_SECONDS: '1' } },
  { script: 'bench:lag', quick: { BENCH_SECONDS: '2' } },
  { script: 'bench:replay', quick: { BENCH_EVENTS: '100000' } },
  { script: 'bench:search', quick: {} },
  { script: 'bench:graph-query', quick: {} },
  { script: 'bench:networks', quick: {} },
  { script: 'bench:gateway', quick: { BENCH_SECONDS: '2' } },
  { script: 'bench:peer-memory', quick: { BENCH_SIZES: '2000', BENCH_READS: '200' } },
  { script: 'bench:corpus', quick: { BENCH_PAGES: '1000', BENCH_ITERATIONS: '100' } },
  { script: 'bench:ingest', quick: { BENCH_RUNS: '1' } },
  { script: 'bench:console', quick: { BENCH_REQUESTS: '200', BENCH_RUNS: '5' } },
];

interface Outcome {
  readonly script: string;
  readonly code: number;
  readonly seconds: number;
  readonly output: string;
}

const run = (bench: BenchScript, figuresFile: string, quick: boolean): Promise<Outcome> =>
  new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('npm', ['run', '--silent', bench.script], {
      env: { ...process.env, ...(quick ? bench.quick : {}), [FIGURES_FILE_ENV]: figuresFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
    });
    child.on('close', (code) => {
      resolve({
        script: bench.script,
        code: code ?? 1,
        seconds: (performance.now() - started) / 1000,
        output,
      });
    });
  });

const cell = (value: string): string => value.replaceAll('|', '\\|');

const formatNumber = (value: number): string =>
  Math.abs(value) >= 100
    ? value.toFixed(0)
    : Math.abs(value) >= 10
      ? value.toFixed(1)
      : value.toFixed(2);

const figureRow = (figure: BenchFigure): string =>
  `| ${[
    figure.bench,
    figure.figure,
    `${formatNumber(figure.value)} ${figure.unit}`,
    figure.baseline
      ? `${figure.baseline.name}: ${formatNumber(figure.baseline.value)} ${figure.unit}`
      : '',
    figure.ratio === undefined ? '' : `${figure.ratio.toFixed(2)}×`,
    figure.target ?? '',
    figure.met === undefined ? '' : figure.met ? 'met' : '**not met**',
  ]
    .map(cell)
    .join(' | ')} |`;

const readFigures = (file: string): BenchFigure[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as BenchFigure)
    : [];

const main = async (): Promise<number> => {
  const out = process.env.BENCH_REPORT ?? 'bench-report.md';
  const quick = process.env.BENCH_QUICK === '1';
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  const packageScripts = (
    JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const unknown = only?.filter((name) => !BENCHES.some((bench) => bench.script === name)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(
      `BENCH_ONLY names unknown benchmarks: ${unknown.join(', ')} (known: ${BENCHES.map((b) => b.script).join(', ')})\n`,
    );
    return 2;
  }
  const selected = BENCHES.filter(
    (bench) =>
      (only === undefined || only.includes(bench.script)) && bench.script in packageScripts,
  );
  const figuresFile = join(mkdtempSync(join(os.tmpdir(), 'cogitave-bench-')), 'figures.jsonl');
  const outcomes: Outcome[] = [];
  for (const bench of selected) {
    process.stderr.write(`== ${bench.script}\n`);
    outcomes.push(await run(bench, figuresFile, quick));
  }
  const figures = readFigures(figuresFile);
  const cpus = os.cpus();
  const lines = [
    '# Cogitave Core benchmark report',
    '',
    `Run ${new Date().toISOString()}${quick ? ' (quick settings: indicative only)' : ''}.`,
    '',
    '## Machine',
    `- ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    `- node ${process.version} (${process.platform} ${process.arch})`,
    '',
    '## Headline figures',
    '| benchmark | figure | value | baseline (same run) | ratio | target | verdict |',
    '| --- | --- | ---: | --- | ---: | --- | --- |',
    ...figures.map(figureRow),
    '',
    '## Runs',
    '| script | exit | seconds |',
    '| --- | ---: | ---: |',
    ...outcomes.map((o) => `| ${o.script} | ${o.code} | ${o.seconds.toFixed(0)} |`),
    '',
    ...outcomes.flatMap((o) => [`## ${o.script}`, '', o.output.trim(), '']),
  ];
  writeFileSync(out, `${lines.join('\n')}\n`);
  process.stderr.write(`wrote ${out}\n`);
  return outcomes.every((o) => o.code === 0) ? 0 : 1;
};

process.exitCode = await main();
