import { defineConfig } from 'vitest/config';

// Tiers are told apart by file suffix, so each can run alone: npm run test:unit|test:int|test:e2e.
export default defineConfig({
  test: {
    // Under CI a JSON report is written too, so .ci/run can print one summary line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.cogitave/test-results.json' }]]
      : ['default'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.unit.test.ts'] } },
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
