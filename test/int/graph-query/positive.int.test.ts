import { UNRESTRICTED } from '../../../services/access/grants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGraphQueryService,
  type GraphQueryService,
} from '../../../services/graph-query/service.js';
import { seedCatalog } from './fixtures.js';
import { openReadModelBed, type ReadModelBed } from '../../support/catalog-read-model.js';

let bed: ReadModelBed;
let graph: GraphQueryService;
let unrolled: GraphQueryService;

beforeAll(async () => {
  bed = await openReadModelBed('graph_query_positive');
  await seedCatalog(bed.database);
  graph = createGraphQueryService({ pool: bed.database.pool });
  unrolled = createGraphQueryService({ pool: bed.database.pool, pathStrategy: 'unrolled' });
});

afterAll(async () => {
  await bed.close();
});

const rows = async (query: string, params: Record<string, unknown> = {}) =>
  (await graph.run(UNRESTRICTED, query, params)).rows;

describe('query_graph over the read model', () => {
  it('given a two-hop chain anchored on a path, when queried, then every unit and its module come back', async () => {
    const result = await graph.run(
      UNRESTRICTED,
      `MATCH (u:Unit)-[:partOf]->(m:Module)-[:partOf]->(p:LearningPath {uid: 'p1'})
       RETURN u.uid AS unit, m.uid AS module ORDER BY unit`,
    );
    expect(result.columns).toEqual(['unit', 'module']);
    expect(result.rows).toEqual([
      { unit: 'u1', module: 'm1' },
      { unit: 'u2', module: 'm1' },
      { unit: 'u3', module: 'm2' },
      { unit: 'u4', module: 'm2' },
    ]);
    expect(result).toMatchObject({ truncated: false, rowCount: 4 });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('given a node in RETURN, when queried, then it comes as {uid, label, title, uri}', async () => {
    expect(await rows("MATCH (s:Skill {uid: 's2'})<-[:teaches]-(m) RETURN m, s")).toEqual([
      {
        m: { uid: 'm2', label: 'Module', title: 'Module Two', uri: 'cogitave://module/m2' },
        s: { uid: 's2', label: 'Skill', title: 'Read models', uri: 'cogitave://skill/s2' },
      },
    ]);
  });

  it.each([
    ['*1..3', ['u2', 'u3', 'u4']],
    ['*2..3', ['u3', 'u4']],
    ['*2', ['u3']],
    ['*..4', ['u2', 'u3', 'u4']],
  ])(
    'given a prerequisite chain, when walked %s, then exactly the reachable units return',
    async (range, expected) => {
      const query = `MATCH (a:Unit {uid: 'u1'})-[:prerequisiteOf${range}]->(b) RETURN b.uid AS b ORDER BY b`;
      expect((await rows(query)).map((row) => row.b)).toEqual(expected);
      expect((await unrolled.run(UNRESTRICTED, query)).rows.map((row) => row.b)).toEqual(expected);
    },
  );

  it('given the anchor at the far end, when walked backwards, then the sources return', async () => {
    const query =
      "MATCH (a:Unit)-[:prerequisiteOf*1..4]->(b:Unit {uid: 'u4'}) RETURN a.uid AS a ORDER BY a";
    expect((await rows(query)).map((row) => row.a)).toEqual(['u1', 'u2', 'u3']);
    expect((await unrolled.run(UNRESTRICTED, query)).rows.map((row) => row.a)).toEqual([
      'u1',
      'u2',
      'u3',
    ]);
  });

  it('given a cycle, when walked up to 4 hops, then no node is revisited', async () => {
    expect(await rows("MATCH (d:Doc {uid: 'd1'})-[:xref*1..4]->(x) RETURN x.uid AS x")).toEqual([
      { x: 'd2' },
    ]);
  });

  it('given an undirected relationship, when queried, then both directions match once each', async () => {
    expect(await rows("MATCH (d:Doc {uid: 'd1'})-[:xref]-(x) RETURN x.uid AS x")).toEqual([
      { x: 'd2' },
      { x: 'd2' },
    ]);
    expect(await rows("MATCH (d:Doc {uid: 'd1'})-[:xref]-(x) RETURN DISTINCT x.uid AS x")).toEqual([
      { x: 'd2' },
    ]);
  });

  it('given alternative types and mixed directions, when queried, then each path matches', async () => {
    const result = await rows(
      `MATCH (d:Doc {uid: 'd1'})-[:dependsOn|relatedTo]->(a:ADR)-[:supersedes]->(old)
       RETURN a.uid AS adr, old.uid AS old, old.status AS status`,
    );
    expect(result).toEqual([{ adr: 'adr2', old: 'adr1', status: 'superseded' }]);
  });

  it('given a dangling edge, when followed, then the missing target is not a match', async () => {
    expect(await rows("MATCH (d:Doc {uid: 'd2'})-[:relatedTo]->(x) RETURN x")).toEqual([]);
  });

  it('given two patterns sharing a variable, when queried, then they join on it', async () => {
    expect(
      await rows(
        `MATCH (u:Unit)-[:teaches]->(s:Skill), (u)-[:partOf]->(m:Module)
         RETURN s.uid AS skill, m.uid AS module ORDER BY module`,
      ),
    ).toEqual([
      { skill: 's1', module: 'm1' },
      { skill: 's1', module: 'm2' },
    ]);
  });

  it('given a relationship variable, when returned, then it names type, source and target', async () => {
    expect(await rows('MATCH (a:ADR)-[r:supersedes]->(b) RETURN r, r.type AS type')).toEqual([
      { r: { type: 'supersedes', source: 'adr2', target: 'adr1' }, type: 'supersedes' },
    ]);
  });

  it.each([
    ['u.durationInMinutes >= 25', {}, ['u2', 'u3']],
    ['u.durationInMinutes > $d', { d: 20 }, ['u2', 'u3']],
    ['u.durationInMinutes < 10 OR u.uid = $uid', { uid: 'u2' }, ['u2', 'u4']],
    ['NOT (u.durationInMinutes <= 10)', {}, ['u2', 'u3']],
    ['u.durationInMinutes <> 10 AND u.durationInMinutes <> 40', {}, ['u2', 'u4']],
    ["u.title STARTS WITH 'Intro'", {}, ['u1']],
    ["u.title ENDS WITH 'audit'", {}, ['u4']],
    ['u.title CONTAINS $word', { word: 'revision' }, ['u2']],
    ['u.uid IN $uids', { uids: ['u3', 'u1', 'nope'] }, ['u1', 'u3']],
    ["u.uid IN ['u4']", {}, ['u4']],
    ['u.durationInMinutes IN [5, 40]', {}, ['u3', 'u4']],
    ['u.product IS NULL AND u.missing IS NULL', {}, ['u1', 'u2', 'u3', 'u4']],
    ['u.durationInMinutes IS NOT NULL', {}, ['u1', 'u2', 'u3', 'u4']],
    ["u.durationInMinutes = '10'", {}, []],
    ['u.title = 10', {}, []],
    ['u.title > $none', { none: null }, []],
    ["'latest' IN u.monikers", {}, ['u1', 'u2', 'u3', 'u4']],
  ])(
    'given WHERE %s, when queried, then the matching units return',
    async (where, params, expected) => {
      const result = await rows(
        `MATCH (u:Unit) WHERE ${where} RETURN u.uid AS u ORDER BY u`,
        params,
      );
      expect(result.map((row) => row.u)).toEqual(expected);
    },
  );

  it('given monikers and attributes, when filtered and returned, then they keep their JSON types', async () => {
    expect(
      await rows("MATCH (d:Doc) WHERE '2025-01' IN d.monikers RETURN d.uid, d.monikers, d.product"),
    ).toEqual([{ 'd.uid': 'd1', 'd.monikers': ['latest', '2025-01'], 'd.product': 'core' }]);
    expect(
      await rows("MATCH (u:Unit {uid: 'u3'}) RETURN u.durationInMinutes AS d, u.nothing AS n"),
    ).toEqual([{ d: 40, n: null }]);
  });

  it('given count(*) and count(DISTINCT x), when grouped, then the counts are numbers per group', async () => {
    expect(
      await rows(
        'MATCH (u:Unit)-[:partOf]->(m:Module) RETURN m.uid AS module, count(*) AS units ORDER BY units DESC, module',
      ),
    ).toEqual([
      { module: 'm1', units: 2 },
      { module: 'm2', units: 2 },
    ]);
    expect(
      await rows(
        'MATCH (u:Unit)-[:teaches]->(s:Skill) RETURN count(DISTINCT s) AS skills, count(u)',
      ),
    ).toEqual([{ skills: 1, 'count(u)': 2 }]);
  });

  it('given requests, when matched as Request nodes, then their read-model fields are properties', async () => {
    expect(
      await rows("MATCH (r:Request) WHERE r.stage = 'accepted' RETURN r, r.status AS status"),
    ).toEqual([
      {
        r: {
          uid: 'req-2026-0002',
          label: 'Request',
          title: 'Speed up projections',
          uri: 'cogitave://request/req-2026-0002',
        },
        status: 'active',
      },
    ]);
    expect(
      await rows(
        "MATCH (n) WHERE n.product = 'core' RETURN n.uid AS uid, n.label AS label ORDER BY uid",
      ),
    ).toEqual([
      { uid: 'd1', label: 'Doc' },
      { uid: 'req-2026-0001', label: 'Request' },
      { uid: 'req-2026-0002', label: 'Request' },
    ]);
  });

  it('given more rows than LIMIT, when queried, then the page is cut and flagged truncated', async () => {
    const page = await graph.run(
      UNRESTRICTED,
      'MATCH (u:Unit) RETURN u.uid AS u ORDER BY u LIMIT 3',
    );
    expect(page).toMatchObject({
      rows: [{ u: 'u1' }, { u: 'u2' }, { u: 'u3' }],
      truncated: true,
      rowCount: 3,
    });
    expect(await graph.run(UNRESTRICTED, 'MATCH (u:Unit) RETURN u.uid AS u LIMIT 4')).toMatchObject(
      {
        truncated: false,
        rowCount: 4,
      },
    );
    expect(
      await graph.run(
        UNRESTRICTED,
        'MATCH (u:Unit) RETURN u.uid AS u ORDER BY u DESC SKIP $s LIMIT $l',
        {
          s: 1,
          l: 2,
        },
      ),
    ).toMatchObject({ rows: [{ u: 'u3' }, { u: 'u2' }], truncated: true });
    expect(
      await graph.run(UNRESTRICTED, 'MATCH (u:Unit) RETURN u.uid AS u SKIP 3 LIMIT 5'),
    ).toMatchObject({
      rowCount: 1,
      truncated: false,
    });
  });

  it('given ORDER BY on an unreturned property, when queried, then rows follow it', async () => {
    expect(
      (await rows('MATCH (u:Unit) RETURN u.uid AS u ORDER BY u.durationInMinutes DESC')).map(
        (row) => row.u,
      ),
    ).toEqual(['u3', 'u2', 'u1', 'u4']);
  });

  it('given comments, when queried, then they are ignored', async () => {
    expect(
      await rows(`// units of module one
        MATCH (u:Unit)-[:partOf]->(m {uid: 'm1'}) /* anchored */ RETURN count(*) AS n`),
    ).toEqual([{ n: 2 }]);
  });

  it('given the two path strategies, when the same walks run, then they return the same rows', async () => {
    const queries = [
      "MATCH (a {uid: 'p1'})-[*1..4]-(b) RETURN DISTINCT b.uid AS b ORDER BY b",
      "MATCH (a:Skill {uid: 's1'})<-[:teaches*1..2]-(b)-[:partOf]->(m) RETURN b.uid AS b, m.uid AS m ORDER BY b, m",
      'MATCH (a:Unit)-[:partOf*1..2]->(b) RETURN a.uid AS a, b.uid AS b ORDER BY a, b',
    ];
    for (const query of queries) {
      const walked = await rows(query);
      expect(walked.length).toBeGreaterThan(0);
      expect((await unrolled.run(UNRESTRICTED, query)).rows).toEqual(walked);
    }
  });
});
