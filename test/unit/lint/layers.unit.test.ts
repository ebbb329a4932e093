import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of eslint.config.js, fired on imports that break them: each snippet is
 * linted as if it were a file at that path, with the repository's own config (type-aware rules
 * off, since the file does not exist; the layering rules need no types).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

const LAYER_RULES = ['no-restricted-imports', '@typescript-eslint/no-restricted-imports'];

const layerErrors = async (path: string, source: string): Promise<string[]> => {
  const [result] = await eslint.lintText(`${source}\nexport const value = 1;\n`, {
    filePath: `${root}${path}`,
  });
  return (result?.messages ?? [])
    .filter((message) => message.severity === 2 && LAYER_RULES.includes(message.ruleId ?? ''))
    .map((message) => message.message);
};

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
    'projections/requests/zz-violation.ts',
    "import type { ToolContext } from '../../mcp-gateway/registry.js';\nexport type T = ToolContext;",
    /never import the gateway/,
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
    'tools never import a read model',
    'mcp-gateway/tools/zz-violation.ts',
    "import { getRequest } from '../../projections/requests/queries.js';\nvoid getRequest;",
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
    'the event store on the database',
    'services/event-store/postgres/zz-ok.ts',
    "import type { Queryable } from '../../database/queryable.js';\nexport type Q = Queryable;",
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
