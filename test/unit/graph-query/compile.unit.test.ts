import { describe, expect, it } from 'vitest';
import { estimateRows, type GraphStats } from '../../../services/graph-query/estimate.js';
import { prepareGraphQuery } from '../../../services/graph-query/service.js';

const HOSTILE = "x'); DROP TABLE read_model.catalog_nodes; --";

describe('query_graph compilation', () => {
  it('given hostile strings in values, when compiled, then they travel only as bind parameters', () => {
    const { compiled } = prepareGraphQuery(
      `MATCH (a:Doc {title: '${HOSTILE.replace(/'/g, "\\'")}'}) WHERE a.summary CONTAINS $p OR a.uid IN [$p, "\\u0027; DROP"] RETURN a`,
      { p: HOSTILE },
    );
    expect(compiled.sql).not.toContain('DROP');
    expect(compiled.sql).not.toContain("x'");
    expect(compiled.values).toContain(HOSTILE);
    expect(compiled.values).toContainEqual([HOSTILE, "'; DROP"]);
  });

  it('given attribute names, when compiled, then they are bind parameters, not SQL identifiers', () => {
    const { compiled } = prepareGraphQuery(
      'MATCH (u:Unit) WHERE u.durationInMinutes > 5 RETURN u.durationInMinutes AS d, u.`weird_Name_1`',
    );
    expect(compiled.sql).not.toContain('durationInMinutes');
    expect(compiled.sql).not.toContain('weird');
    expect(compiled.values).toContain('durationInMinutes');
    // The same attribute binds once, so equal expressions stay equal for GROUP BY / DISTINCT.
    expect(compiled.values.filter((value) => value === 'durationInMinutes')).toHaveLength(1);
  });

  it('given variables with odd names, when compiled, then the SQL uses generated aliases only', () => {
    const { compiled } = prepareGraphQuery(
      'MATCH (`a"; DROP`:Unit)-[`r--`:partOf]->(`m`) RETURN `a"; DROP`.uid AS x, `r--`',
    );
    expect(compiled.sql).not.toMatch(/DROP|r--/);
    expect(compiled.columns.map((column) => column.name)).toEqual(['x', '`r--`']);
  });

  it('given labels and types, when compiled, then they come from the vocabulary as parameters', () => {
    const { compiled } = prepareGraphQuery('MATCH (a:Unit)-[:partOf]->(b:Module) RETURN a');
    expect(compiled.values).toEqual(expect.arrayContaining(['Unit', 'Module', ['partOf']]));
    expect(compiled.sql).not.toMatch(/'Unit'|'partOf'/);
  });

  it('given no LIMIT, when compiled, then the default of 100 applies and one extra row is fetched', () => {
    const { compiled } = prepareGraphQuery('MATCH (a:Unit) RETURN a');
    expect(compiled.limit).toBe(100);
    expect(compiled.values.at(-1)).toBe(101);
  });

  it('given RETURN items without aliases, when compiled, then columns are named as written', () => {
    const { compiled } = prepareGraphQuery(
      'MATCH (a:Unit)-[:partOf]->(m) RETURN m.title, count(*) ORDER BY count(*) DESC',
    );
    expect(compiled.columns).toEqual([
      { name: 'm.title', kind: 'value' },
      { name: 'count(*)', kind: 'count' },
    ]);
    expect(compiled.sql).toContain('GROUP BY c0');
  });
});

describe('the traversal estimate', () => {
  const stats = (nodes: number, edges: number, type = 'relatedTo'): GraphStats => ({
    nodes,
    nodesByLabel: new Map([['Skill', nodes]]),
    edgesByType: new Map([[type, { edges, sources: nodes, targets: nodes }]]),
  });
  const estimate = (query: string, graph: GraphStats, params = {}) =>
    estimateRows(prepareGraphQuery(query, params).analysis, graph, params);

  it('given a dense graph, when a depth-4 walk is anchored, then the estimate is fanout^1..4', () => {
    const graph = stats(60, 60 * 59);
    const rows = estimate('MATCH (a:Skill {uid: $u})-[:relatedTo*1..4]->(b) RETURN b', graph, {
      u: 's1',
    });
    expect(rows).toBeCloseTo(59 + 59 ** 2 + 59 ** 3 + 59 ** 4, 0);
  });

  it('given the anchor on the far end, when estimated, then the walk is counted from it', () => {
    const graph = stats(10_000, 50_000);
    const anchoredRight = estimate(
      'MATCH (a:Skill)-[:relatedTo*1..2]->(b {uid: $u}) RETURN a',
      graph,
      { u: 'x' },
    );
    expect(anchoredRight).toBeCloseTo(5 + 25, 5);
  });

  it('given parts joined only in WHERE, when estimated, then their sizes multiply', () => {
    const graph = stats(1000, 0);
    expect(estimate('MATCH (a:Skill), (b:Skill) WHERE a.title = b.title RETURN a', graph)).toBe(
      1_000_000,
    );
  });

  it('given the anchor is a hub, when its real degree is known, then the first step uses it', () => {
    const graph = stats(10_000, 50_000);
    const { analysis } = prepareGraphQuery(
      'MATCH (a:Skill {uid: $u})-[:relatedTo*1..2]->(b) RETURN b',
      { u: 'hub' },
    );
    const mean = estimateRows(analysis, graph, { u: 'hub' });
    const hub = estimateRows(analysis, graph, { u: 'hub' }, (key, hop) =>
      key === 'a' && hop === 0 ? 2000 : undefined,
    );
    expect(mean).toBeCloseTo(5 + 25, 5);
    expect(hub).toBeCloseTo(2000 + 2000 * 5, 5);
    // A node below the mean never lowers the estimate.
    expect(estimateRows(analysis, graph, { u: 'leaf' }, () => 1)).toBeCloseTo(mean, 5);
  });

  it('given uid IN a list, when estimated, then the anchor counts the list', () => {
    const graph = stats(1000, 5000);
    expect(
      estimate('MATCH (a:Skill)-[:relatedTo]->(b) WHERE a.uid IN $uids RETURN b', graph, {
        uids: ['a', 'b', 'c'],
      }),
    ).toBe(15);
  });
});
