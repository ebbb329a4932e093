import { UNRESTRICTED } from '../../../services/access/grants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGraphQueryService,
  type GraphQueryService,
} from '../../../services/graph-query/service.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { seedCatalog } from './fixtures.js';
import {
  insertEdges,
  upsertNodes,
  openReadModelBed,
  type ReadModelBed,
} from '../../support/catalog-read-model.js';

/**
 * Hostile and runaway queries against real Postgres: each must end in a coded error naming
 * the violated bound, well within the statement timeout, and leave the read model untouched.
 */

const TIMEOUT_MS = 2000;
// A complete directed graph: depth 4 from one node is 60·59·58·57 ≈ 11.7 million paths.
const DENSE = 60;
const HUB_SPOKES = 5000;

let bed: ReadModelBed;
let graph: GraphQueryService;

const countRows = async (): Promise<{ nodes: number; edges: number; requests: number }> => {
  const { rows } = await bed.database.pool.query<{
    nodes: number;
    edges: number;
    requests: number;
  }>(
    `SELECT (SELECT count(*) FROM read_model.catalog_nodes)::int AS nodes,
            (SELECT count(*) FROM read_model.catalog_edges)::int AS edges,
            (SELECT count(*) FROM read_model.requests)::int AS requests`,
  );
  return rows[0]!;
};

let before: { nodes: number; edges: number; requests: number };

beforeAll(async () => {
  bed = await openReadModelBed('graph_query_adversarial');
  await seedCatalog(bed.database);
  const skills = Array.from({ length: DENSE }, (_, i) => `k${i}`);
  await upsertNodes(
    bed.database,
    skills.map((uid) => ({ uid, label: 'Skill' })),
  );
  await insertEdges(
    bed.database,
    skills.flatMap((a) => skills.filter((b) => b !== a).map((b) => [a, 'relatedTo', b] as const)),
  );
  // A hub: one article depending on 5,000 others, each depending on 5 more. The mean fanout
  // of dependsOn stays about 6, so only the hub's real degree reveals the blow-up.
  const spokes = Array.from({ length: HUB_SPOKES }, (_, i) => `h${i}`);
  await upsertNodes(bed.database, [
    { uid: 'hub', label: 'Article' },
    ...spokes.map((uid) => ({ uid, label: 'Article' })),
  ]);
  await insertEdges(bed.database, [
    ...spokes.map((uid) => ['hub', 'dependsOn', uid] as const),
    ...spokes.flatMap((_, i) =>
      [1, 2, 3, 4, 5]
        .map((j) => (i * 7 + j * 13 + 1) % HUB_SPOKES)
        .filter((target) => target !== i)
        .map((target) => [`h${i}`, 'dependsOn', `h${target}`] as const),
    ),
  ]);
  graph = createGraphQueryService({ pool: bed.database.pool, timeoutMs: TIMEOUT_MS });
  before = await countRows();
});

afterAll(async () => {
  await bed.close();
});

/** Runs the query and returns its coded refusal and how long the refusal took. */
const refusal = async (
  query: string,
  params: Record<string, unknown> = {},
  service: GraphQueryService = graph,
): Promise<{ code: string; bound: unknown; message: string; ms: number }> => {
  const started = performance.now();
  try {
    await service.run(UNRESTRICTED, query, params);
  } catch (error) {
    if (!(error instanceof CogitaveError)) throw error;
    return {
      code: error.code,
      bound: error.details.bound,
      message: error.message,
      ms: performance.now() - started,
    };
  }
  throw new Error(`expected a refusal for: ${query}`);
};

describe('query_graph under attack', () => {
  it.each([
    ["MATCH (a:Skill {uid: 'k0'})-[:relatedTo*1..4]->(b) RETURN b", 'anchored depth 4'],
    ['MATCH (a:Skill)-[:relatedTo*1..3]->(b) RETURN count(*)', 'unanchored depth 3'],
    [
      'MATCH (a:Skill)-[:relatedTo]->(b)-[:relatedTo]->(c)-[:relatedTo]->(d)-[:relatedTo]->(e) RETURN count(*)',
      'fixed four-hop chain',
    ],
    ['MATCH (a)-[*1..4]-(b) RETURN DISTINCT a.uid', 'untyped undirected depth 4'],
    [
      "MATCH (a:Skill {uid: 'k1'})-[:relatedTo*1..2]->(b), (b)-[:relatedTo*1..2]->(c) RETURN c",
      'two chained walks',
    ],
  ])(
    'given a dense graph and a %s, when run, then the traversal bound refuses it before it runs',
    async (query) => {
      const answer = await refusal(query);
      expect(answer).toMatchObject({ code: 'FAILED_PRECONDITION', bound: 'traversal' });
      expect(answer.message).toMatch(/about [\d,.]+( billion)? paths/);
      expect(answer.ms).toBeLessThan(TIMEOUT_MS);
    },
  );

  it('given a hub anchor, when walked 4 hops deep, then its real degree trips the traversal bound', async () => {
    const answer = await refusal(
      "MATCH (a:Article {uid: 'hub'})-[:dependsOn*1..4]->(b) RETURN count(*)",
    );
    expect(answer).toMatchObject({ code: 'FAILED_PRECONDITION', bound: 'traversal' });
    expect(answer.ms).toBeLessThan(TIMEOUT_MS);
    // An ordinary node of the same graph walks fine: the mean fanout is small.
    const ordinary = await graph.run(
      UNRESTRICTED,
      "MATCH (a:Article {uid: 'h1'})-[:dependsOn*1..4]->(b) RETURN count(*) AS paths",
    );
    expect(ordinary.rows[0]?.paths).toBeGreaterThan(100);
  });

  it('given the guard lifted, when a runaway walk runs, then the statement timeout stops it and says so', async () => {
    const unguarded = createGraphQueryService({
      pool: bed.database.pool,
      timeoutMs: 300,
      maxEstimatedRows: Number.POSITIVE_INFINITY,
    });
    const answer = await refusal(
      'MATCH (a:Skill)-[:relatedTo*1..4]->(b) RETURN count(*)',
      {},
      unguarded,
    );
    expect(answer).toMatchObject({ code: 'FAILED_PRECONDITION', bound: 'timeout' });
    expect(answer.message).toContain('300 ms');
    expect(answer.ms).toBeLessThan(TIMEOUT_MS);
    // The pool's connection is usable afterwards (the transaction was rolled back).
    expect(
      (await unguarded.run(UNRESTRICTED, "MATCH (a:Skill {uid: 'k0'}) RETURN a.uid")).rowCount,
    ).toBe(1);
  });

  it.each([
    ['MATCH (a:Skill), (b:Skill) RETURN a, b', 'cartesianProduct'],
    ['MATCH (a:Skill)-[:relatedTo*]->(b) RETURN b', 'depth'],
    ['MATCH (a:Skill)-[:relatedTo*1..5]->(b) RETURN b', 'depth'],
    ['MATCH (a:Skill)-[:relatedTo*5]->(b) RETURN b', 'depth'],
    ['MATCH (a:Skill) RETURN a LIMIT 100000', 'limit'],
    ["CREATE (a:Doc {uid: 'x'})", 'readOnly'],
    ["MATCH (a:Doc {uid: 'd1'}) DETACH DELETE a", 'readOnly'],
    ["MATCH (a:Doc) SET a.title = 'pwned' RETURN a", 'readOnly'],
    ["MATCH (a:Doc) MERGE (b:Doc {uid: 'x'}) RETURN a", 'readOnly'],
    ['MATCH (a:Doc) REMOVE a.title RETURN a', 'readOnly'],
    ["CALL db.createLabel('X')", 'clause'],
    ["LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", 'clause'],
    ['MATCH (a:Doc) RETURN a UNION MATCH (b:Unit) RETURN b', 'clause'],
    ['OPTIONAL MATCH (a:Doc) RETURN a', 'clause'],
    ['MATCH (a:Doc) RETURN pg_sleep(10)', 'function'],
  ])('given %s, when run, then it is refused naming the %s bound', async (query, bound) => {
    const answer = await refusal(query);
    expect(answer).toMatchObject({ bound });
    expect(['INVALID_ARGUMENT', 'FAILED_PRECONDITION']).toContain(answer.code);
    expect(answer.ms).toBeLessThan(TIMEOUT_MS);
  });

  describe('injection attempts', () => {
    const HOSTILE = [
      "'); DROP TABLE read_model.catalog_nodes; --",
      "x' OR '1'='1",
      '"; DELETE FROM read_model.requests; --',
      '$1::text); SELECT pg_sleep(5); --',
      '\\',
    ];

    it.each(HOSTILE)(
      'given %j as a parameter, when run, then it is only a value',
      async (value) => {
        const result = await graph.run(
          UNRESTRICTED,
          'MATCH (a:Doc) WHERE a.uid = $v OR a.title CONTAINS $v OR a.status IN [$v] RETURN a',
          { v: value },
        );
        expect(result.rows).toEqual([]);
      },
    );

    it('given hostile string literals with escapes, when run, then they are only values', async () => {
      const queries = [
        "MATCH (a:Doc) WHERE a.title = '\\'); DROP TABLE read_model.catalog_nodes; --' RETURN a",
        'MATCH (a:Doc) WHERE a.title = "\\u0027) OR 1=1 --" RETURN a',
        "MATCH (a:Doc {uid: '\\u0027; DELETE FROM read_model.catalog_edges; --'}) RETURN a",
        "MATCH (a:Doc) WHERE a.summary STARTS WITH '%' OR a.title CONTAINS '_' RETURN a",
      ];
      for (const query of queries) expect((await graph.run(UNRESTRICTED, query)).rows).toEqual([]);
    });

    it.each([
      ['MATCH (a:`Doc); DROP TABLE read_model.catalog_nodes; --`) RETURN a', 'label'],
      ["MATCH (a:`Doc' OR 1=1 --`) RETURN a", 'label'],
      ['MATCH (a:Doc)-[:`xref]->() DELETE`]->(b) RETURN b', 'edgeType'],
      ['MATCH (a:Doc) RETURN a.`title; DROP TABLE x`', 'property'],
      ["MATCH (a:Doc) WHERE a.`uid') OR ('1'='1` = 1 RETURN a", 'property'],
      ['MATCH (a:Doc) RETURN a.`ｔｉｔｌｅ`', 'property'],
      ['MATCH (a:Doc) RETURN a.title -- comment', 'operator'],
      ['MATCH (a:Doc) RETURN a; DROP TABLE read_model.catalog_nodes', 'readOnly'],
      ['MATCH (a:Doc) RETURN a /* ; DELETE */ ; SELECT 1', 'syntax'],
      ['MATCH (a:Doc {uid: $`x`}) RETURN a', 'syntax'],
    ])('given %s, when run, then it is refused naming the %s bound', async (query, bound) => {
      expect(await refusal(query)).toMatchObject({ code: 'INVALID_ARGUMENT', bound });
    });

    it('given a hostile parameter name or value shape, when run, then the parameter bound is named', async () => {
      const query = 'MATCH (a:Doc {uid: $uid}) RETURN a';
      expect(await refusal(query, { uid: 'd1', "uid'); DROP TABLE x; --": 'y' })).toMatchObject({
        bound: 'parameter',
      });
      expect(await refusal(query, { uid: { toString: 'd1' } })).toMatchObject({
        bound: 'parameter',
      });
      expect(await refusal(query, { uid: ['d1', ['d2']] })).toMatchObject({ bound: 'parameter' });
      expect(await refusal(query, { uid: Number.NaN })).toMatchObject({ bound: 'parameter' });
      // Text Postgres cannot store is refused as input, not met as a database error.
      expect(await refusal(query, { uid: 'd\u00001' })).toMatchObject({ bound: 'parameter' });
      expect(await refusal(query, { uid: ['\uD800'] })).toMatchObject({ bound: 'parameter' });
      expect(await refusal("MATCH (a:Doc {uid: 'd\\u0000'}) RETURN a")).toMatchObject({
        bound: 'syntax',
      });
    });

    it('given backtick-quoted variables and comments around clauses, when run, then the query works', async () => {
      const result = await graph.run(
        UNRESTRICTED,
        "MATCH /* c */ (`a; DROP`:Doc {uid: 'd1'}) // trailing\n RETURN `a; DROP`.uid AS uid",
      );
      expect(result.rows).toEqual([{ uid: 'd1' }]);
    });

    it('after every attempt, the read model is untouched', async () => {
      expect(await countRows()).toEqual(before);
    });
  });
});
