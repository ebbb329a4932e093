// Typed lint: rules that need the type checker (floating promises, unsafe any) catch the
// async mistakes an event store and its subscribers are prone to.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layering, as lint errors (test/unit/lint/layers.unit.test.ts proves each one fires).
 * Two rule names carry them because a file under services/event-store/ falls under two
 * layers, and one rule's options in a later block would replace, not extend, the earlier.
 */
const CAPABILITIES =
  'access|audit|catalog|commands|github|graph-query|networks|requests|resources|search|threads';
const layers = [
  {
    // The lifecycle is pure: the machine, forms and rules, on xstate and zod only.
    files: ['lifecycle/**/*.ts'],
    // The drift-checked TRANSITIONS.md writer is a development script, never imported.
    ignores: ['lifecycle/write-transitions.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|xstate(/|$)|zod(/|$))',
              message:
                'lifecycle/ is pure: it imports its own files, xstate and zod only (no I/O, no services).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/**/*.ts', 'projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+mcp-gateway/',
              message:
                'services/ and projections/ never import the gateway; it depends on them, not the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/event-store/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${CAPABILITIES}|projections|lifecycle|bin)/`,
              message:
                'The event store is infrastructure: it imports the database and runtime only, no capability.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['mcp-gateway/tools/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['pg', '@electric-sql/pglite', '@eventstore/db-client'].map((name) => ({
            name,
            message: 'Tools reach data through capability services (context.services) only.',
          })),
          patterns: [
            {
              regex: '^(\\.\\./)+(services/(database|event-store)|projections)/',
              message:
                'Tools reach data through capability services (context.services), never the database, the event store or a read model.',
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cogitave/**', 'test/fixtures/docs-sites/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allow: [{ name: ['BigInt'], from: 'lib' }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='only']", message: 'No .only in tests.' },
      ],
    },
  },
  ...layers,
  {
    // Tests state their preconditions with `!` where a failed lookup fails the test anyway.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // The console's one browser script.
    files: ['mcp-gateway/console/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'EventSource',
          'DOMParser',
          'setTimeout',
          'clearTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
