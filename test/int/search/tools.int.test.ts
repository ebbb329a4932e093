import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type Caller, type ToolCallContext } from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { codeSampleSearchTool } from '../../../mcp-gateway/tools/code-sample-search.js';
import { docsSearchTool } from '../../../mcp-gateway/tools/docs-search.js';
import { createLsaEmbedder } from '../../../services/search/lsa.js';
import { createSearchService, type SearchService } from '../../../services/search/service.js';
import {
  openReadModelBed,
  silentLogger,
  upsertNodes,
  type ReadModelBed,
} from '../../support/catalog-read-model.js';
import { IGNORE_WRITES } from '../../support/read-your-writes.js';

const everything: Caller = {
  actor: 'agent:test',
  grants: { products: '*', types: '*', propose: false, writeNetworks: false },
};

describe('docs_search and code_sample_search tools', () => {
  let bed: ReadModelBed;
  let search: SearchService;
  const context = (caller: Caller = everything): ToolCallContext => ({
    services: { search, readYourWrites: IGNORE_WRITES } as unknown as GatewayServices,
    caller,
    signal: new AbortController().signal,
    progress: () => Promise.resolve(),
    now: () => new Date('2026-01-05T09:00:00Z'),
    newId: () => 'id',
  });

  beforeAll(async () => {
    bed = await openReadModelBed('search_tools');
    await upsertNodes(bed.database, [
      {
        uid: 'doc.replay',
        label: 'Doc',
        title: 'Replaying projections',
        summary: 'Rebuild a read model into a shadow schema.',
        body: 'Run cogitave replay to rebuild and compare digests.',
        product: 'core',
      },
      {
        uid: 'doc.billing',
        label: 'Doc',
        title: 'Billing projections',
        summary: 'Invoices per month.',
        product: 'billing',
      },
      {
        uid: 'sample.replay',
        label: 'CodeSample',
        title: 'Replay from code',
        body: "await replay({ projection: 'requests', swap: true });",
        product: 'core',
        attributes: { language: 'typescript', sourceUid: 'doc.replay', compiled: true },
      },
    ]);
    search = createSearchService({
      db: bed.database.pool,
      changes: { onChange: () => () => undefined },
      embedder: createLsaEmbedder({ dimensions: 4, minDocumentFrequency: 1 }),
      logger: silentLogger,
    });
    await search.ready();
  });

  afterAll(async () => {
    await search.close();
    await bed.close();
  });

  it('given an index not built yet, when the first docs_search runs, then it reports progress while the index builds, and later searches do not', async () => {
    const fresh = createSearchService({
      db: bed.database.pool,
      changes: { onChange: () => () => undefined },
      embedder: createLsaEmbedder({ dimensions: 4, minDocumentFrequency: 1 }),
      logger: silentLogger,
    });
    const steps: [number, number | undefined, string | undefined][] = [];
    const call = (): ToolCallContext => ({
      ...context(),
      services: { search: fresh, readYourWrites: IGNORE_WRITES } as unknown as GatewayServices,
      progress: (progress, total, message) => {
        steps.push([progress, total, message]);
        return Promise.resolve();
      },
    });
    try {
      await runTool(docsSearchTool, { query: 'replay' }, call());
      expect(steps).toEqual([
        [0, 1, 'building the search index'],
        [1, 1, 'search index built'],
      ]);
      await runTool(docsSearchTool, { query: 'replay' }, call());
      expect(steps).toHaveLength(2);
    } finally {
      await fresh.close();
    }
  });

  it('given a query, when docs_search runs, then the result matches its output schema and renders', async () => {
    const args = docsSearchTool.input.parse({ query: 'replay read model', limit: 2 });
    const result = await runTool(docsSearchTool, args, context());
    expect(docsSearchTool.output.safeParse(result).success).toBe(true);
    const { results } = result as { results: { uid: string; uri: string }[] };
    expect(results[0]).toMatchObject({ uid: 'doc.replay', uri: 'cogitave://doc/doc.replay' });
    expect(docsSearchTool.render(result)).toMatch(
      /1\. Replaying projections \(Doc, cogitave:\/\/doc\/doc\.replay\)/,
    );
    expect(docsSearchTool.annotations.readOnlyHint).toBe(true);
    expect(docsSearchTool.access).toBe('read');
  });

  it('given a caller granted one product, when docs_search runs, then other products stay hidden', async () => {
    const caller: Caller = {
      ...everything,
      grants: { ...everything.grants, products: ['billing'] },
    };
    const result = await runTool(
      docsSearchTool,
      docsSearchTool.input.parse({ query: 'projections' }),
      context(caller),
    );
    expect((result as { results: { uid: string }[] }).results.map((hit) => hit.uid)).toEqual([
      'doc.billing',
    ]);
  });

  it('given bad input, when validated or run, then it is refused with an actionable message', async () => {
    expect(docsSearchTool.input.safeParse({ query: '' }).success).toBe(false);
    expect(docsSearchTool.input.safeParse({ query: 'x', types: ['Request'] }).success).toBe(false);
    expect(docsSearchTool.input.safeParse({ query: 'x', limit: 51 }).success).toBe(false);
    await expect(
      runTool(docsSearchTool, { query: 'x', moniker: 'not a version' }, context()),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('given a query, when code_sample_search runs, then it returns checked code with its source', async () => {
    const args = codeSampleSearchTool.input.parse({ query: 'replay swap', language: 'TypeScript' });
    const result = await runTool(codeSampleSearchTool, args, context());
    expect(codeSampleSearchTool.output.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({
      results: [
        {
          uid: 'sample.replay',
          language: 'typescript',
          compiled: true,
          source_uid: 'doc.replay',
          source_uri: 'cogitave://doc/doc.replay',
        },
      ],
    });
    expect(codeSampleSearchTool.render(result)).toContain('```typescript\nawait replay(');
  });
});
