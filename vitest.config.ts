import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tiers are told apart by file suffix, so each can run alone:
// npm run test:unit|test:heavy|test:int|test:e2e.
//   unit  (.unit.test.ts)  pure and fast: no threads, compilers, linters, model fits or processes;
//   heavy (.heavy.test.ts) no server either, but CPU-bound or concurrent: worker threads, the
//                          TypeScript compiler, ESLint, fitting a model, spawning processes;
//   int   (.int.test.ts)   real Postgres; e2e (.e2e.test.ts) real processes and clients.
export default defineConfig({
  test: {
    // Most files spend their time waiting on child processes and Postgres rather than on
    // their own CPU, so at least two run at once even where Vitest's default (one less
    // than the cores) would run one at a time on a two-core machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Under CI a JSON report is written too, so .ci/run can print one summary line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.cogitave/test-results.json' }]]
      : ['default'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // The CLI that tests spawn is built once per run (test/support/cli.ts runs it).
    globalSetup: ['test/support/build-once.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.unit.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'heavy',
          include: ['**/*.heavy.test.ts'],
          // Seconds of CPU each, and slower still beside the other tiers on a busy machine: the
          // limit only catches a hang, speed is measured by test/bench/.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['**/*.int.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['**/*.e2e.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
