import { describe, expect, it } from 'vitest';
import { edgeTypeNames, labelNames } from '../../../services/catalog/vocabulary.js';
import { prepareGraphQuery } from '../../../services/graph-query/service.js';
import { CogitaveError } from '../../../services/runtime/errors.js';

/** The coded refusal a query earns before anything runs (undefined when it compiles). */
const refusal = (
  query: string,
  params: Record<string, unknown> = {},
): { code: string; bound: unknown; message: string } | undefined => {
  try {
    prepareGraphQuery(query, params);
    return undefined;
  } catch (error) {
    if (!(error instanceof CogitaveError)) throw error;
    return { code: error.code, bound: error.details.bound, message: error.message };
  }
};

describe('query_graph static bounds', () => {
  it.each([
    ['MATCH (a:Unit)-[*]->(b) RETURN b', '"*" has no upper bound'],
    ['MATCH (a:Unit)-[*..]->(b) RETURN b', '"*.." has no upper bound'],
    ['MATCH (a:Unit)-[*2..]->(b) RETURN b', '"*2.." has no upper bound'],
    ['MATCH (a:Unit)-[*5]->(b) RETURN b', 'asks for 5'],
    ['MATCH (a:Unit)-[:partOf*1..5]->(b) RETURN b', 'asks for 5'],
    ['MATCH (a:Unit)-[*0..2]->(b) RETURN b', 'span 1 to 4 hops'],
  ])('given %s, when prepared, then the depth bound is named', (query, words) => {
    const answer = refusal(query);
    expect(answer).toMatchObject({ code: 'INVALID_ARGUMENT', bound: 'depth' });
    expect(answer?.message).toContain(words);
    expect(answer?.message).toContain('4');
  });

  it.each(['CREATE', 'MERGE', 'DELETE', 'DETACH DELETE', 'SET', 'REMOVE'])(
    'given a %s clause, when prepared, then it is refused as a write',
    (keyword) => {
      const query = `MATCH (a:Unit) ${keyword} a${keyword === 'SET' || keyword === 'REMOVE' ? '.title' : ''} RETURN a`;
      expect(refusal(query)).toMatchObject({ code: 'INVALID_ARGUMENT', bound: 'readOnly' });
    },
  );

  it('given a write keyword at the very start, when prepared, then it is refused as a write', () => {
    expect(refusal("CREATE (n:Doc {uid: 'x'})")).toMatchObject({ bound: 'readOnly' });
    expect(refusal('match (n) detach delete n')).toMatchObject({ bound: 'readOnly' });
  });

  it.each([
    ['CALL db.labels() YIELD label RETURN label', 'CALL'],
    ["LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", 'LOAD'],
    ['MATCH (a:Unit) RETURN a UNION MATCH (b:Doc) RETURN b', 'UNION'],
    ['OPTIONAL MATCH (a:Unit) RETURN a', 'OPTIONAL'],
    ['MATCH (a:Unit) WITH a RETURN a', 'WITH'],
    ['UNWIND [1, 2] AS x RETURN x', 'UNWIND'],
  ])('given %s, when prepared, then the clause bound names %s', (query, keyword) => {
    expect(refusal(query)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      bound: 'clause',
      message: expect.stringContaining(keyword) as unknown,
    });
  });

  it('given an unknown label, when prepared, then the error names it and lists the allowed ones', () => {
    const answer = refusal('MATCH (a:Secret) RETURN a');
    expect(answer).toMatchObject({ code: 'INVALID_ARGUMENT', bound: 'label' });
    expect(answer?.message).toContain('"Secret"');
    for (const label of labelNames) expect(answer?.message).toContain(label);
  });

  it('given an unknown edge type, when prepared, then the error names it and lists the allowed ones', () => {
    const answer = refusal('MATCH (a:Unit)-[:partOf|owns]->(b) RETURN b');
    expect(answer).toMatchObject({ code: 'INVALID_ARGUMENT', bound: 'edgeType' });
    expect(answer?.message).toContain('"owns"');
    for (const type of edgeTypeNames) expect(answer?.message).toContain(type);
  });

  it('given LIMIT above 1000, when prepared, then the limit bound is named', () => {
    expect(refusal('MATCH (a:Unit) RETURN a LIMIT 100000')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      bound: 'limit',
      message: expect.stringContaining('1000') as unknown,
    });
    expect(refusal('MATCH (a:Unit) RETURN a LIMIT $n', { n: 1001 })).toMatchObject({
      bound: 'limit',
    });
    expect(refusal('MATCH (a:Unit) RETURN a LIMIT $n', { n: 2.5 })).toMatchObject({
      bound: 'limit',
    });
    expect(refusal('MATCH (a:Unit) RETURN a SKIP 20000')).toMatchObject({ bound: 'skip' });
  });

  it('given disconnected patterns, when prepared, then the cartesian product is refused', () => {
    expect(refusal('MATCH (a:Unit), (b:Module) RETURN a, b')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      bound: 'cartesianProduct',
    });
    expect(refusal('MATCH (a:Unit)-[:partOf]->(m), (b:Doc) RETURN a, b')).toMatchObject({
      bound: 'cartesianProduct',
    });
    // An OR does not join the parts for every row.
    expect(
      refusal('MATCH (a:Unit), (b:Doc) WHERE a.product = b.product OR a.uid = $u RETURN a', {
        u: 'x',
      }),
    ).toMatchObject({ bound: 'cartesianProduct' });
  });

  it('given disconnected patterns joined in WHERE or by a shared variable, when prepared, then they compile', () => {
    expect(refusal('MATCH (a:Unit), (b:Doc) WHERE a.product = b.product RETURN a, b')).toBe(
      undefined,
    );
    expect(refusal('MATCH (a:Unit)-[:partOf]->(m), (m)-[:partOf]->(p) RETURN p')).toBe(undefined);
  });

  it.each([
    ['MATCH (a:Unit) RETURN toUpper(a.title)', 'function'],
    ['MATCH (a:Unit) RETURN apoc.do(a)', 'syntax'],
    ['MATCH (a:Unit) WHERE a.title != "x" RETURN a', 'operator'],
    ['MATCH (a:Unit) WHERE a.title =~ ".*" RETURN a', 'operator'],
    ['MATCH (a:Unit) WHERE a.durationInMinutes + 1 > 2 RETURN a', 'operator'],
    ['MATCH (a:Unit) RETURN a; MATCH (b:Doc) RETURN b', 'syntax'],
    ['MATCH (a:Unit) RETURN *', 'syntax'],
    ['MATCH p = (a:Unit)-[:partOf]->(b) RETURN p', 'syntax'],
    ["MATCH (a:Unit) WHERE a.title = 'open RETURN a", 'syntax'],
    ['MATCH (a:Unit) RETURN b', 'variable'],
    ['MATCH (a:Unit)-[r:partOf*1..2]->(b) RETURN b', 'variable'],
    ['MATCH (a:Unit:Doc) RETURN a', 'label'],
    ['MATCH (a:Unit) RETURN a.`x; DROP TABLE y`', 'property'],
    ['MATCH (a:Unit)-[r:partOf]->(b) RETURN r.weight', 'property'],
    ['MATCH (a:Unit) WHERE count(*) > 1 RETURN a', 'function'],
    ['MATCH (a:Unit) RETURN a /* unterminated', 'syntax'],
  ])('given %s, when prepared, then the %s bound is named', (query, bound) => {
    expect(refusal(query)).toMatchObject({ code: 'INVALID_ARGUMENT', bound });
  });

  it('given bad parameters, when prepared, then the parameter bound is named', () => {
    const query = 'MATCH (a:Unit {uid: $uid}) RETURN a';
    expect(refusal(query)).toMatchObject({
      bound: 'parameter',
      message: expect.stringContaining('$uid') as unknown,
    });
    expect(refusal(query, { uid: { $ne: null } })).toMatchObject({ bound: 'parameter' });
    expect(refusal(query, { uid: [['nested']] })).toMatchObject({ bound: 'parameter' });
    expect(refusal(query, { uid: 'x', "x'); DROP TABLE t; --": 1 })).toMatchObject({
      bound: 'parameter',
    });
  });

  it('given a well-formed query, when prepared, then it compiles', () => {
    expect(
      refusal(
        `MATCH (u:Unit)-[:partOf]->(m:Module)<-[:partOf]-(v), (m)-[:teaches|relatedTo*1..4]-(s)
         WHERE (u.durationInMinutes >= 5 AND NOT u.title STARTS WITH 'Intro') OR u.uid IN $uids
         RETURN DISTINCT m AS module, count(DISTINCT v) AS units ORDER BY units DESC SKIP 0 LIMIT 10`,
        { uids: ['a', 'b'] },
      ),
    ).toBe(undefined);
  });
});
