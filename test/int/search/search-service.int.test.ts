import { UNRESTRICTED } from '../../../services/access/grants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../../projections/change-feed.js';
import type { SearchService } from '../../../services/search/service.js';
import {
  changeNotice,
  deleteNodes,
  insertEdges,
  openReadModelBed,
  startSearch,
  upsertNodes,
  type ReadModelBed,
  type SearchBed,
  type NodeRow,
} from '../../support/catalog-read-model.js';

const NODES: NodeRow[] = [
  {
    uid: 'arch.event-store',
    label: 'Doc',
    title: 'The event store',
    summary: 'Append-only streams with optimistic concurrency.',
    body: '# Appending\nAppend events to a stream with an expected revision.\n# Reading\nRead a stream forwards or the global log.',
    product: 'core',
  },
  {
    uid: 'arch.projections',
    label: 'Doc',
    title: 'Projections and read models',
    summary: 'Read models are rebuilt from the log.',
    body: 'A projection applies each event once, with its checkpoint in the same transaction.',
    product: 'core',
  },
  {
    uid: 'howto.search',
    label: 'Article',
    title: 'Searching the docs',
    summary: 'Hybrid retrieval with BM25 and embeddings.',
    body: 'Ranking fuses lexical and vector scores.',
    product: 'docs',
    monikers: ['latest', '2025-10'],
  },
  {
    uid: 'learn.module',
    label: 'Module',
    title: 'Event sourcing basics',
    summary: 'A module of units.',
    body: 'Work through the units in order.',
    product: 'core',
  },
  {
    uid: 'learn.unit-1',
    label: 'Unit',
    title: 'Append your first event',
    summary: 'Streams and revisions.',
    body: 'Append an event to a new stream; the revision starts at zero.',
    product: 'core',
    attributes: { durationInMinutes: 10 },
  },
  {
    uid: 'sample.append',
    label: 'CodeSample',
    title: 'Append to a stream',
    body: "await store.append('order-1', [event], { expectedRevision: 'no_stream' });",
    product: 'core',
    attributes: { language: 'typescript', sourceUid: 'arch.event-store', compiled: true },
  },
  {
    uid: 'sample.append-broken',
    label: 'CodeSample',
    title: 'Append to a stream (old API)',
    body: "store.appendToStream('order-1', event);",
    product: 'core',
    attributes: { language: 'typescript', sourceUid: 'arch.event-store', compiled: false },
  },
  {
    uid: 'sample.shell',
    label: 'CodeSample',
    title: 'Append from the shell',
    body: 'cogitave append order-1 --event event.json',
    product: 'core',
    attributes: { language: 'bash', sourceUid: 'missing.node' },
  },
];

describe('search service over the catalog read model', () => {
  let bed: ReadModelBed;
  let feed: ChangeFeed;
  let search: SearchService;
  let running: SearchBed;

  beforeAll(async () => {
    bed = await openReadModelBed('search_service');
    await upsertNodes(bed.database, NODES);
    await insertEdges(bed.database, [
      ['learn.unit-1', 'partOf', 'learn.module'],
      ['sample.append', 'exampleOf', 'arch.event-store'],
    ]);
    running = await startSearch(bed);
    ({ feed, search } = running);
  });

  afterAll(async () => {
    await running.close();
    await bed.close();
  });

  it('given the read model, when started, then the index holds every node and ranks by the query', async () => {
    // Code samples have their own index, built by the first search that needs them.
    expect(search.status()).toMatchObject({
      ready: true,
      documents: NODES.filter((node) => node.label !== 'CodeSample').length,
    });
    const hits = await search.search(UNRESTRICTED, {
      query: 'optimistic concurrency of the global log',
    });
    expect(hits[0]).toMatchObject({
      uid: 'arch.event-store',
      uri: 'cogitave://doc/arch.event-store',
      type: 'Doc',
      product: 'core',
    });
    expect(hits[0]!.scores.bm25).toBeGreaterThan(0);
    expect(hits[0]!.ranks.fused).toBe(1);
    expect(hits[0]!.ranks.bm25).not.toBeNull();
  });

  it('given a module whose unit matches, when searched, then the graph brings the module up with a graph score', async () => {
    const hits = await search.search(UNRESTRICTED, {
      query: 'first event revision zero',
      types: ['Unit', 'Module'],
    });
    expect(hits.map((hit) => hit.uid)).toEqual(['learn.unit-1', 'learn.module']);
    expect(hits[1]!.scores.graph).toBeGreaterThan(0);
  });

  it('given filters, when searched, then only nodes of those types, product and moniker come back', async () => {
    const byType = await search.search(UNRESTRICTED, { query: 'stream', types: ['CodeSample'] });
    expect(byType.length).toBeGreaterThan(0);
    expect(byType.every((hit) => hit.type === 'CodeSample')).toBe(true);
    const byProduct = await search.search(UNRESTRICTED, {
      query: 'retrieval ranking event',
      product: 'docs',
    });
    expect(byProduct.map((hit) => hit.uid)).toEqual(['howto.search']);
    const byMoniker = await search.search(UNRESTRICTED, {
      query: 'event search stream',
      moniker: '2025-10',
    });
    expect(byMoniker.map((hit) => hit.uid)).toEqual(['howto.search']);
    const limited = await search.search(UNRESTRICTED, { query: 'event stream append', limit: 2 });
    expect(limited).toHaveLength(2);
  });

  it('given grants for one product, when searched, then other products are not visible', async () => {
    const hits = await search.search(
      { products: ['docs'], types: '*' },
      { query: 'retrieval ranking event stream' },
    );
    expect(hits.map((hit) => hit.product)).toEqual(['docs']);
  });

  it('given bad input, when searched, then a clear INVALID_ARGUMENT and no result', async () => {
    await expect(search.search(UNRESTRICTED, { query: '   ' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(search.search(UNRESTRICTED, { query: 'x', types: ['Request'] })).rejects.toThrow(
      /unknown labels Request/,
    );
    await expect(search.search(UNRESTRICTED, { query: 'x', limit: 0 })).rejects.toThrow(
      /limit must be/,
    );
    await expect(
      search.search(UNRESTRICTED, { query: 'x', moniker: 'not a version' }),
    ).rejects.toThrow(/moniker/);
  });

  it('given code samples, when searched, then by default all but those known not to compile, with code, language and source', async () => {
    const hits = await search.codeSampleSearch(UNRESTRICTED, { query: 'append to stream' });
    // The shell sample cannot be checked, so it counts; the broken one is left out.
    expect(hits.map((hit) => hit.uid)).toEqual(['sample.append', 'sample.shell']);
    expect(hits[0]).toMatchObject({
      uri: 'cogitave://code-sample/sample.append',
      language: 'typescript',
      compiled: true,
      code: expect.stringContaining('expectedRevision') as string,
      source: { uid: 'arch.event-store', uri: 'cogitave://doc/arch.event-store' },
    });
    const all = await search.codeSampleSearch(UNRESTRICTED, {
      query: 'append stream',
      includeUnchecked: true,
    });
    expect(all.map((hit) => hit.uid).sort()).toEqual([
      'sample.append',
      'sample.append-broken',
      'sample.shell',
    ]);
    const bash = await search.codeSampleSearch(UNRESTRICTED, {
      query: 'append',
      language: 'BASH',
      includeUnchecked: true,
    });
    expect(bash).toMatchObject([
      { uid: 'sample.shell', compiled: null, source: { uid: 'missing.node', uri: null } },
    ]);
  });

  it('given rows inserted, updated and deleted, when the change feed announces them, then results follow', async () => {
    const node: NodeRow = {
      uid: 'adr.0007',
      label: 'ADR',
      title: 'Use Kafka for telemetry',
      summary: 'Telemetry travels over Kafka.',
      body: 'We decided on Kafka.',
      product: 'core',
      attributes: { status: 'accepted', date: '2026-01-05' },
    };
    // Insert.
    await upsertNodes(bed.database, [node]);
    feed.publishLocal(changeNotice([node]));
    await search.settled();
    expect((await search.search(UNRESTRICTED, { query: 'kafka telemetry' }))[0]?.uid).toBe(
      'adr.0007',
    );
    // Update: the old words no longer find it, the new ones do.
    await upsertNodes(bed.database, [
      { ...node, title: 'Use NATS for telemetry', summary: 'NATS', body: 'We decided on NATS.' },
    ]);
    feed.publishLocal(changeNotice([node]));
    await search.settled();
    const uids = async (query: string): Promise<string[]> =>
      (await search.search(UNRESTRICTED, { query })).map((hit) => hit.uid);
    expect(await uids('kafka')).not.toContain('adr.0007');
    expect((await uids('nats'))[0]).toBe('adr.0007');
    // Delete.
    await deleteNodes(bed.database, ['adr.0007']);
    feed.publishLocal(changeNotice([node]));
    await search.settled();
    expect(await uids('nats telemetry')).not.toContain('adr.0007');
    expect(search.status().documents).toBe(NODES.length);
  });

  it('given a change the notice could not list, when a truncated notice arrives, then everything is reloaded', async () => {
    await upsertNodes(bed.database, [
      { uid: 'skill.replay', label: 'Skill', title: 'Replaying projections', product: 'core' },
    ]);
    feed.publishLocal({ ...changeNotice([]), truncated: true, collections: ['cogitave://skill/'] });
    await search.settled();
    expect((await search.search(UNRESTRICTED, { query: 'replaying' }))[0]?.uid).toBe(
      'skill.replay',
    );
    await deleteNodes(bed.database, ['skill.replay']);
    feed.publishLocal(changeNotice([{ label: 'Skill', uid: 'skill.replay' }]));
    await search.settled();
  });

  it('given notices about other resources, when they arrive, then the index ignores them', async () => {
    feed.publishLocal({
      projection: 'requests',
      position: changeNotice([]).position,
      uris: ['cogitave://request/req-2026-0001'],
      collections: ['cogitave://request/'],
    });
    await search.settled();
    expect(search.status().documents).toBe(NODES.length);
  });
});
