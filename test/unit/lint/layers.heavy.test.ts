import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of eslint.config.js, fired on code that breaks them: each snippet is
 * linted as if it were a file at that path, with the repository's own config. The import and
 * length rules need no types, so they run with the type-aware rules off (the file does not
 * exist); the append rule needs the checker, so its snippets are given a program of their own
 * (the project service's default project, on the repository's tsconfig).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const untyped = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });
const typed = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      languageOptions: {
        parserOptions: {
          projectService: {
            allowDefaultProject: ['services/*/zz-*.ts'],
            defaultProject: 'tsconfig.json',
          },
          tsconfigRootDir: root,
        },
      },
    },
  ],
});

const errorsOf = async (
  eslint: ESLint,
  rule: string,
  path: string,
  source: string,
): Promise<{ line: number; message: string }[]> => {
  const [result] = await eslint.lintText(`${source}\nexport const value = 1;\n`, {
    filePath: `${root}${path}`,
  });
  const messages = result?.messages ?? [];
  // A snippet that does not parse would pass every "no error" case: fail it instead.
  expect(messages.filter((message) => message.fatal === true)).toEqual([]);
  return messages
    .filter((message) => message.severity === 2 && message.ruleId === rule)
    .map(({ line, message }) => ({ line, message }));
};

const layerErrors = async (path: string, source: string): Promise<string[]> =>
  (await errorsOf(untyped, 'layers/imports', path, source)).map(({ message }) => message);

const VIOLATIONS: readonly (readonly [string, string, string, RegExp])[] = [
  [
    'the lifecycle imports nothing impure (node)',
    'lifecycle/zz-violation.ts',
    "import { readFile } from 'node:fs/promises';\nvoid readFile;",
    /lifecycle\/ is pure/,
  ],
  [
    'the lifecycle imports nothing impure (a service)',
    'lifecycle/zz-violation.ts',
    "import type { Queryable } from '../services/database/queryable.js';\nexport type Q = Queryable;",
    /lifecycle\/ is pure/,
  ],
  [
    'services never import the gateway',
    'services/requests/zz-violation.ts',
    "import type { ToolContext } from '../../mcp-gateway/registry.js';\nexport type T = ToolContext;",
    /never import the gateway/,
  ],
  [
    'projections never import the gateway',
    'projections/zz-violation.ts',
    "import type { ToolContext } from '../mcp-gateway/registry.js';\nexport type T = ToolContext;",
    /never import the gateway/,
  ],
  [
    'the runtime imports no other services folder',
    'services/runtime/zz-violation.ts',
    "import type { Queryable } from '../database/queryable.js';\nexport type Q = Queryable;",
    /services\/runtime\/ is the ground/,
  ],
  [
    'the event store imports no capability',
    'services/event-store/postgres/zz-violation.ts',
    "import { createCatalogReadService } from '../../catalog/read-service.js';\nvoid createCatalogReadService;",
    /imports the database and runtime only/,
  ],
  [
    'the event store still never imports the gateway',
    'services/event-store/zz-violation.ts',
    "import type { ToolContext } from '../../mcp-gateway/registry.js';\nexport type T = ToolContext;",
    /never import the gateway/,
  ],
  [
    'the projection machinery imports no capability',
    'projections/zz-violation.ts',
    "import { getRequest } from '../services/requests/read-model/queries.js';\nvoid getRequest;",
    /machinery only/,
  ],
  [
    'the projection machinery imports no capability (re-exported)',
    'projections/zz-violation.ts',
    "export { catalogNodeUri } from '../services/catalog/read-model/projection.js';",
    /machinery only/,
  ],
  [
    "no capability imports another's read-model rows",
    'services/resources/zz-violation.ts',
    "import type { RequestRow } from '../requests/read-model/rows.js';\nexport type R = RequestRow;",
    /another capability's internals/,
  ],
  [
    "no capability names another read model's tables",
    'services/graph-query/zz-violation.ts',
    "import { CATALOG_NODES } from '../catalog/read-model/tables.js';\nvoid CATALOG_NODES;",
    /another capability's internals/,
  ],
  [
    'a read model projection is composed in bin/ only',
    'mcp-gateway/zz-violation.ts',
    "import { catalogProjection } from '../services/catalog/read-model/projection.js';\nvoid catalogProjection;",
    /another capability's internals/,
  ],
  [
    "no capability imports another's worker entry",
    'services/search/zz-violation.ts',
    "const worker = await import('../catalog/page-worker.js');\nvoid worker;",
    /another capability's internals/,
  ],
  [
    'tools never import the database',
    'mcp-gateway/tools/zz-violation.ts',
    "import type { Queryable } from '../../services/database/queryable.js';\nexport type Q = Queryable;",
    /capability services/,
  ],
  [
    'tools never import the event store',
    'mcp-gateway/tools/zz-violation.ts',
    "import type { EventStore } from '../../services/event-store/types.js';\nexport type E = EventStore;",
    /capability services/,
  ],
  [
    'tools never import a read model, not even its queries',
    'mcp-gateway/tools/zz-violation.ts',
    "import { getRequest } from '../../services/requests/read-model/queries.js';\nvoid getRequest;",
    /capability services/,
  ],
  [
    'tools never import a database driver',
    'mcp-gateway/tools/zz-violation.ts',
    "import pg from 'pg';\nvoid pg;",
    /capability services/,
  ],
];

const ALLOWED: readonly (readonly [string, string, string])[] = [
  [
    'the lifecycle on xstate and its own files',
    'lifecycle/zz-ok.ts',
    "import { setup } from 'xstate';\nimport { STAGES } from './stages.js';\nvoid setup; void STAGES;",
  ],
  [
    'the runtime on its own files and packages',
    'services/runtime/zz-ok.ts',
    "import { z } from 'zod';\nimport { CogitaveError } from './errors.js';\nvoid z; void CogitaveError;",
  ],
  [
    'the event store on the database',
    'services/event-store/postgres/zz-ok.ts',
    "import type { Queryable } from '../../database/queryable.js';\nexport type Q = Queryable;",
  ],
  [
    'the projection machinery on the ground, threads and access',
    'projections/zz-ok.ts',
    "import type { Queryable } from '../services/database/queryable.js';\nimport { startModuleWorker } from '../services/threads/module-worker.js';\nimport type { ReadScope } from '../services/access/grants.js';\nexport type Q = [Queryable, ReadScope];\nvoid startModuleWorker;",
  ],
  [
    "a capability on another's read-model queries and documents",
    'services/resources/zz-ok.ts',
    "import { getRequest } from '../requests/read-model/queries.js';\nimport { requestDocument } from '../requests/read-model/state.js';\nvoid getRequest; void requestDocument;",
  ],
  [
    "a capability on another read model's query module for one reader",
    'services/search/zz-ok.ts',
    "import { loadCatalogNodes } from '../catalog/read-model/search-queries.js';\nvoid loadCatalogNodes;",
  ],
  [
    'a capability on its own read model and worker',
    'services/catalog/zz-ok.ts',
    "import { catalogProjection } from './read-model/projection.js';\nimport type { PageParseReply } from './page-worker.js';\nexport type P = PageParseReply;\nvoid catalogProjection;",
  ],
  [
    'the composition root on a read model projection',
    'bin/zz-ok.ts',
    "import { requestsProjection } from '../services/requests/read-model/projection.js';\nvoid requestsProjection;",
  ],
  [
    'a tool on a capability service',
    'mcp-gateway/tools/zz-ok.ts',
    "import { MAX_SEARCH_LIMIT } from '../../services/search/service.js';\nvoid MAX_SEARCH_LIMIT;",
  ],
  [
    'the gateway on the services',
    'mcp-gateway/server/zz-ok.ts',
    "import type { Queryable } from '../../services/database/queryable.js';\nexport type Q = Queryable;",
  ],
  [
    'a test on anything',
    'test/unit/zz-ok.unit.test.ts',
    "import type { RequestRow } from '../../services/requests/read-model/rows.js';\nexport type R = RequestRow;",
  ],
];

describe('the layering, enforced by npm run lint', () => {
  it.each(VIOLATIONS)(
    'given an import that breaks "%s", when linted, then it is an error',
    async (_rule, path, source, message) => {
      const errors = await layerErrors(path, source);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(message);
    },
  );

  it.each(ALLOWED)('given %s, when linted, then no layering error', async (_what, path, source) => {
    expect(await layerErrors(path, source)).toEqual([]);
  });
});

/** A function of `lines` statements, with `before` on the line above it. */
const functionOf = (lines: number, before = ''): string =>
  `${before}\nexport const long = (): number => {\n  let n = 0;\n${'  n += 1;\n'.repeat(lines - 4)}  return n;\n};`;

describe('functions fit one sitting (max-lines-per-function, 150)', () => {
  const lengthErrors = async (path: string, source: string) =>
    errorsOf(untyped, 'max-lines-per-function', path, source);

  it('given a product function of 151 lines, when linted, then it is an error', async () => {
    expect(await lengthErrors('services/requests/zz-long.ts', functionOf(151))).toHaveLength(1);
  });

  it('given one of 150 lines, when linted, then no error', async () => {
    expect(await lengthErrors('services/requests/zz-long.ts', functionOf(150))).toEqual([]);
  });

  it('given a long function that says why, when linted, then no error', async () => {
    const reason =
      '// eslint-disable-next-line max-lines-per-function -- one table, read top to bottom';
    expect(await lengthErrors('mcp-gateway/zz-long.ts', functionOf(200, reason))).toEqual([]);
  });

  it('given a long function in a test, when linted, then no error', async () => {
    expect(await lengthErrors('test/unit/zz-long.unit.test.ts', functionOf(200))).toEqual([]);
  });
});

describe('only the command kernel and the event store append (layers/no-direct-append)', () => {
  const APPENDS = [
    "import type { EventStore } from '../event-store/types.js';",
    "import type { PostgresEventStore } from '../event-store/postgres/adapter.js';",
    'export const write = async (',
    '  store: EventStore,',
    '  adapter: PostgresEventStore,',
    "  picked: Pick<EventStore, 'append'> | undefined,",
    '): Promise<void> => {',
    "  await store.append('s', [], { expectedRevision: 'any' });", // line 8
    '  await adapter.appendAtomically([]);', // line 9
    "  await picked?.append('s', [], { expectedRevision: 'any' });", // line 10
    "  new URLSearchParams().append('a', 'b');",
    "  new Headers().append('a', 'b');",
    '};',
  ].join('\n');

  it('given appends on the port, an adapter and a Pick of the port outside the kernel, when linted, then each is an error, and URLSearchParams and Headers appends are not', async () => {
    const errors = await errorsOf(
      typed,
      'layers/no-direct-append',
      'services/governance/zz-append.ts',
      APPENDS,
    );
    expect(errors.map(({ line }) => line)).toEqual([8, 9, 10]);
    expect(errors[0]?.message).toMatch(/Only services\/commands\/ .* append to the event store/);
  }, 300_000);

  it('given the same appends in the command kernel, when linted, then no error', async () => {
    expect(
      await errorsOf(typed, 'layers/no-direct-append', 'services/commands/zz-append.ts', APPENDS),
    ).toEqual([]);
  }, 300_000);
});
