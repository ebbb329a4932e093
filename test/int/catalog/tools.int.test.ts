import { UNRESTRICTED } from '../../../services/access/grants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import { getResource, resourceContentHash } from '../../../projections/resources.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { readCatalogResource } from '../../../services/catalog/read-model/queries.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { NODE_LABELS } from '../../../services/catalog/vocabulary.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import {
  runTool,
  type ToolCallContext,
  type ToolDefinition,
} from '../../../mcp-gateway/registry.js';
import { describeSchemaTool } from '../../../mcp-gateway/tools/describe-schema.js';
import { docsFetchTool } from '../../../mcp-gateway/tools/docs-fetch.js';
import { getLearningPathTool } from '../../../mcp-gateway/tools/get-learning-path.js';
import { getRelatedTool } from '../../../mcp-gateway/tools/get-related.js';
import { resolveXrefTool } from '../../../mcp-gateway/tools/resolve-xref.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { openTestBed, silentLogger, type TestBed } from '../projections/support/fixtures.js';
import { GRAPH_FILES, makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import { catalogToolContext } from './support.js';

/**
 * The catalog tools through their registry definitions, on the read model the catalog
 * projection built from a real ingest: given the small graph of fixtures.ts, when a tool is
 * called, then its structured result (checked against its output schema) or its coded error.
 */
describe('catalog tools (postgres)', () => {
  let bed: TestBed;
  let runner: ProjectionRunner;
  let corpus: CorpusFolder;
  let context: ToolCallContext;
  let run = 0;

  const ingest = async (): Promise<void> => {
    run += 1;
    const report = await ingestCorpus(bed.store, {
      dir: corpus.dir,
      checkSamples: false,
      meta: {
        commandId: `run-${run}`,
        actor: 'test',
        at: new Date(Date.UTC(2026, 0, 5, 9, run)).toISOString(),
      },
    });
    expect(report.errors).toEqual([]);
    const last = report.lastPosition;
    if (last)
      await runner.waitFor('catalog', (s) => s.position !== null && s.position >= last, 20_000);
  };

  const call = async (tool: ToolDefinition, args: unknown): Promise<Record<string, unknown>> =>
    runTool(tool, args, context);

  const failure = async (tool: ToolDefinition, args: unknown): Promise<CogitaveError> => {
    try {
      await call(tool, args);
    } catch (error) {
      if (error instanceof CogitaveError) return error;
      throw error;
    }
    throw new Error(`${tool.name} succeeded`);
  };

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'catalog_tools', [catalogProjection]);
    runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [catalogProjection],
      lagProbeIntervalMs: 0,
    });
    runner.start();
    corpus = await makeCorpus(GRAPH_FILES);
    context = catalogToolContext(bed.database.pool);
    await ingest();
  });

  afterAll(async () => {
    await runner.stop();
    await bed.close();
    await corpus.cleanup();
  });

  it('registers the five catalog tools as read-only', () => {
    const names = [
      'describe_schema',
      'docs_fetch',
      'get_related',
      'get_learning_path',
      'resolve_xref',
    ];
    const tools = ALL_TOOLS.filter((tool) => names.includes(tool.name));
    expect(tools.map((t) => t.name).sort()).toEqual([...names].sort());
    expect(tools.every((t) => t.access === 'read' && t.annotations.readOnlyHint)).toBe(true);
    expect(describeSchemaTool.description).toMatch(/first/);
  });

  it('describe_schema returns exactly the vocabulary, with counts and the monikers in use', async () => {
    const schema = await call(describeSchemaTool, {});
    expect((schema.labels as { label: string }[]).map((l) => l.label)).toEqual(
      NODE_LABELS.map((l) => l.label),
    );
    expect(schema.labels).toContainEqual(
      expect.objectContaining({ label: 'Unit', resource_type: 'unit', count: 3 }),
    );
    expect(schema.monikers).toEqual(['latest', '2025-10']);
    expect(schema.uri_template).toBe('cogitave://{type}/{id}');
    expect(describeSchemaTool.render(schema)).toContain('-[:teaches]-> Skill');
  });

  it('docs_fetch returns the full node, its edges both ways, and the hash resources/read serves', async () => {
    const node = await call(docsFetchTool, { uid: 'g.doc.intro' });
    expect(node).toMatchObject({
      uid: 'g.doc.intro',
      label: 'Doc',
      title: 'Introduction',
      body: 'Read @g.doc.deep and <xref:g.unit.first> next.\n',
      uri: 'cogitave://doc/g.doc.intro',
      sourcePath: 'docs/intro.md',
      edges: {
        outbound: [
          {
            type: 'prerequisiteOf',
            uid: 'g.module.basics',
            title: 'Basics',
            ordinal: 0,
            origin: 'frontMatter',
          },
          { type: 'xref', uid: 'g.doc.deep', title: 'Deep dive', ordinal: 0, origin: 'text' },
          { type: 'xref', uid: 'g.unit.first', title: 'First unit', ordinal: 1, origin: 'text' },
        ],
        inbound: [{ type: 'xref', uid: 'g.unit.first', title: 'First unit' }],
      },
    });
    const resource = await readCatalogResource(
      bed.database.pool,
      UNRESTRICTED,
      'doc',
      'g.doc.intro',
    );
    expect(resource?.contentHash).toBe(node.contentHash);
    expect(resourceContentHash(resource?.document)).toBe(node.contentHash);
    expect(
      (await getResource(bed.database.pool, UNRESTRICTED, 'cogitave://doc/g.doc.intro'))
        ?.contentHash,
    ).toBe(node.contentHash);
    expect(
      await readCatalogResource(bed.database.pool, UNRESTRICTED, 'unit', 'g.doc.intro'),
    ).toBeUndefined();
  });

  it('docs_fetch honours monikers and suggests close uids for unknown ones', async () => {
    expect(await call(docsFetchTool, { uid: 'g.doc.frozen', moniker: '2025-10' })).toMatchObject({
      title: 'Frozen page',
    });
    const wrongVersion = await failure(docsFetchTool, { uid: 'g.doc.frozen', moniker: 'latest' });
    expect(wrongVersion).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('2025-10') as string,
    });
    const unknown = await failure(docsFetchTool, { uid: 'g.doc.intr' });
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.message).toContain('closest: g.doc.intro (Introduction)');
  });

  it('get_related follows direction, edge types and depth', async () => {
    const parts = await call(getRelatedTool, {
      uid: 'g.module.basics',
      direction: 'in',
      edge_types: ['partOf'],
    });
    expect(parts.results).toEqual([
      {
        uid: 'g.unit.first',
        label: 'Unit',
        title: 'First unit',
        edge_type: 'partOf',
        direction: 'in',
        depth: 1,
        from: 'g.module.basics',
      },
      {
        uid: 'g.unit.second',
        label: 'Unit',
        title: 'Second unit',
        edge_type: 'partOf',
        direction: 'in',
        depth: 1,
        from: 'g.module.basics',
      },
    ]);
    const out = await call(getRelatedTool, { uid: 'g.module.basics', direction: 'out' });
    expect((out.results as { uid: string }[]).map((r) => r.uid)).toEqual(['g.path']);
    const two = await call(getRelatedTool, { uid: 'g.unit.first', direction: 'out', depth: 2 });
    expect(
      (two.results as { uid: string; depth: number; edge_type: string }[]).map((r) => [
        r.uid,
        r.depth,
        r.edge_type,
      ]),
    ).toEqual([
      ['g.module.basics', 1, 'partOf'],
      ['g.skill.basics', 1, 'teaches'],
      ['g.doc.intro', 1, 'xref'],
      ['g.doc.deep', 2, 'xref'],
      ['g.path', 2, 'partOf'],
      ['g.module.advanced', 2, 'prerequisiteOf'],
    ]);
    expect(await failure(getRelatedTool, { uid: 'g.path', edge_types: ['linksTo'] })).toMatchObject(
      {
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('known: partOf') as string,
      },
    );
    expect(() => getRelatedTool.input.parse({ uid: 'g.path', depth: 3 })).toThrow();
  });

  it('get_learning_path orders prerequisites and parts, skips known nodes and sums durations', async () => {
    const path = await call(getLearningPathTool, { target_uid: 'g.path' });
    // The skill is a prerequisite of the advanced module; the first unit (already on the path)
    // teaches it.
    expect((path.results as { uid: string }[]).map((s) => s.uid)).toEqual([
      'g.path',
      'g.doc.intro',
      'g.module.basics',
      'g.unit.first',
      'g.unit.second',
      'g.skill.basics',
      'g.module.advanced',
      'g.unit.advanced',
    ]);
    // Units 5 + 7 + 11; the modules' own durations are not added to their parts'.
    expect(path.total_duration_in_minutes).toBe(23);
    const known = await call(getLearningPathTool, {
      target_uid: 'g.path',
      known_uids: ['g.module.basics', 'g.skill.basics'],
    });
    expect((known.results as { uid: string }[]).map((s) => s.uid)).toEqual([
      'g.path',
      'g.module.advanced',
      'g.unit.advanced',
    ]);
    expect(known.skipped).toEqual(['g.module.basics', 'g.skill.basics']);
    expect(known.total_duration_in_minutes).toBe(11);
    expect(getLearningPathTool.render(known)).toBe(
      [
        'Learning path to g.path (11 min):',
        '1. The path [LearningPath g.path] (target)',
        '2. Advanced [Module g.module.advanced] (part)',
        '3. Advanced unit [Unit g.unit.advanced] 11 min (part)',
        'Skipped (known): g.module.basics, g.skill.basics',
      ].join('\n'),
    );
  });

  it('get_learning_path names a prerequisite cycle', async () => {
    const error = await failure(getLearningPathTool, { target_uid: 'g.cycle.a' });
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toContain('g.cycle.a → g.cycle.b → g.cycle.c → g.cycle.a');
  });

  it('resolve_xref resolves every link form, moniker-aware, and suggests the closest uids', async () => {
    expect(await call(resolveXrefTool, { xref: '<xref:g.doc.deep?view=2025-10>' })).toEqual({
      uid: 'g.doc.deep',
      label: 'Doc',
      title: 'Deep dive',
      uri: 'cogitave://doc/g.doc.deep',
      moniker: '2025-10',
      source: expect.stringMatching(/^cogitave-corpus-/) as string,
      path: '/docs/deep',
      section: null,
    });
    expect(resolveXrefTool.render(await call(resolveXrefTool, { xref: '@g.unit.first' }))).toBe(
      'First unit (Unit g.unit.first, latest): cogitave://unit/g.unit.first',
    );
    expect(await call(resolveXrefTool, { xref: '@g.unit.first' })).toMatchObject({
      uri: 'cogitave://unit/g.unit.first',
      moniker: 'latest',
    });
    expect(await call(resolveXrefTool, { xref: 'xref:g.doc.frozen' })).toMatchObject({
      moniker: '2025-10',
    });
    expect(
      await failure(resolveXrefTool, { xref: 'g.doc.frozen', moniker: 'latest' }),
    ).toMatchObject({ code: 'NOT_FOUND' });
    const unknown = await failure(resolveXrefTool, { xref: '@g.unit.frist' });
    expect(unknown.details.closest).toEqual(
      expect.arrayContaining([expect.objectContaining({ uid: 'g.unit.first' })]),
    );
    expect((unknown.details.closest as { uid: string }[])[0]?.uid).toBe('g.unit.first');
    expect(await failure(resolveXrefTool, { xref: 'not a link' })).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('removes a retired node with its edges and resource; a rebuild equals the live read model', async () => {
    await corpus.remove('docs/deep.md');
    await ingest();
    expect(
      await readCatalogResource(bed.database.pool, UNRESTRICTED, 'doc', 'g.doc.deep'),
    ).toBeUndefined();
    expect(
      await getResource(bed.database.pool, UNRESTRICTED, 'cogitave://doc/g.doc.deep'),
    ).toBeUndefined();
    expect(await failure(docsFetchTool, { uid: 'g.doc.deep' })).toMatchObject({
      code: 'NOT_FOUND',
    });
    const intro = await call(docsFetchTool, { uid: 'g.doc.intro' });
    expect((intro.edges as { outbound: { uid: string }[] }).outbound.map((e) => e.uid)).toEqual([
      'g.module.basics',
      'g.unit.first',
    ]);

    await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: catalogProjection,
      schema: 'shadow_catalog',
      batchSize: 4,
    });
    const live = await digestTables(bed.database.pool, catalogProjection);
    const shadow = await digestTables(bed.database.pool, catalogProjection, 'shadow_catalog');
    expect(shadow).toEqual(live);
    expect(live.map((d) => d.rows)).toEqual([12, 13, 1, 12]);
  });
});
