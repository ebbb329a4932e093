import { UNRESTRICTED } from '../../../services/access/grants.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeTypeNames, labelNames } from '../../../services/catalog/vocabulary.js';
import {
  createGraphQueryService,
  type GraphQueryService,
} from '../../../services/graph-query/service.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { seedCatalog } from './fixtures.js';
import { openReadModelBed, type ReadModelBed } from '../../support/catalog-read-model.js';

/**
 * Whatever text and parameters arrive, query_graph answers with a result or a coded refusal
 * (INVALID_ARGUMENT / FAILED_PRECONDITION naming a bound) — never a database error, never a
 * crash. Two generators: token soups (mostly nonsense) and well-shaped queries with random
 * parts (which mostly reach Postgres, so the compiled SQL itself is exercised).
 */

let bed: ReadModelBed;
let graph: GraphQueryService;

beforeAll(async () => {
  bed = await openReadModelBed('graph_query_property');
  await seedCatalog(bed.database);
  graph = createGraphQueryService({ pool: bed.database.pool, timeoutMs: 2000 });
});

afterAll(async () => {
  await bed.close();
});

type Outcome = 'result' | 'refused';

const outcome = async (query: string, params: Record<string, unknown>): Promise<Outcome> => {
  try {
    const result = await graph.run(UNRESTRICTED, query, params);
    expect(result.rows.length).toBe(result.rowCount);
    expect(result.rowCount).toBeLessThanOrEqual(1000);
    for (const row of result.rows) expect(Object.keys(row)).toEqual(result.columns);
    return 'result';
  } catch (error) {
    if (!(error instanceof CogitaveError)) throw error;
    if (error.code !== 'INVALID_ARGUMENT' && error.code !== 'FAILED_PRECONDITION') {
      throw new Error(`${error.code} for ${JSON.stringify(query)}: ${error.message}`, {
        cause: error,
      });
    }
    expect(typeof error.details.bound).toBe('string');
    return 'refused';
  }
};

const TOKENS = [
  'MATCH',
  'WHERE',
  'RETURN',
  'DISTINCT',
  'ORDER BY',
  'SKIP',
  'LIMIT',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IN',
  'IS NULL',
  'IS NOT NULL',
  'STARTS WITH',
  'CONTAINS',
  'ENDS WITH',
  'count(*)',
  'count(',
  'DESC',
  'CREATE',
  'DELETE',
  'CALL',
  'UNION',
  'WITH',
  ...labelNames.map((label) => `:${label}`),
  ...edgeTypeNames.map((type) => `:${type}`),
  ':Nope',
  'a',
  'b',
  'r',
  'a.uid',
  'a.title',
  'b.durationInMinutes',
  'a.monikers',
  'r.type',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
  '|',
  '*',
  '*1..4',
  '*2',
  '..',
  '-',
  '->',
  '<-',
  '--',
  '=',
  '<>',
  '<',
  '>=',
  '!=',
  '+',
  ';',
  '$p',
  '$uids',
  '$missing',
  "'u1'",
  '"x\'y"',
  "'\\u0027'",
  '`a b`',
  '0',
  '1',
  '-1',
  '2.5',
  '1e999',
  'true',
  'null',
  '/* c */',
  '// c\n',
];

const param = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 }),
  fc.object({ maxDepth: 1 }),
);

const params = fc.record(
  { p: param, uids: param, other: param },
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, unknown>>;

const soup = fc
  .array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 30 })
  .map((tokens) => tokens.join(' '));

const label = fc.option(fc.constantFrom(...labelNames, 'Nope'), { nil: undefined });
const node = (name: string) =>
  fc
    .tuple(label, fc.option(fc.constantFrom("{uid: 'u1'}", '{uid: $p}', "{title: 'x'}", '{}')))
    .map(([l, props]) => `(${name}${l ? `:${l}` : ''}${props ? ` ${props}` : ''})`);
const relationship = fc
  .tuple(
    fc.constantFrom('-', '<-'),
    fc.constantFrom('', 'r'),
    fc.option(fc.constantFrom(...edgeTypeNames, 'owns'), { nil: undefined }),
    fc.option(fc.constantFrom('*1..2', '*1..4', '*2', '*', '*1..5', '*..3'), { nil: undefined }),
    fc.constantFrom('->', '-'),
  )
  .map(([left, variable, type, range, right]) => {
    const inner = `${variable}${type ? `:${type}` : ''}${range ?? ''}`;
    return `${left}[${inner}]${left === '<-' && right === '->' ? '-' : right}`;
  });
const operand = fc.constantFrom(
  'a.uid',
  'b.title',
  'a.durationInMinutes',
  'b.status',
  'a.monikers',
  'a.product',
  '$p',
  '$uids',
  "'u1'",
  '10',
  'null',
  'true',
  '[1, "a"]',
  'a',
  'b',
);
const condition = fc
  .tuple(
    operand,
    fc.constantFrom('=', '<>', '<', '>=', 'STARTS WITH', 'CONTAINS', 'ENDS WITH', 'IN', 'IS NULL'),
    operand,
    fc.constantFrom('', 'NOT '),
  )
  .map(([l, op, r, not]) => (op === 'IS NULL' ? `${not}${l} IS NULL` : `${not}(${l} ${op} ${r})`));
const where = fc
  .array(condition, { maxLength: 3 })
  .chain((conditions) =>
    fc
      .constantFrom(' AND ', ' OR ')
      .map((joiner) => (conditions.length > 0 ? ` WHERE ${conditions.join(joiner)}` : '')),
  );
const returns = fc.constantFrom(
  'a',
  'a.uid AS uid, b',
  'DISTINCT b.title AS t ORDER BY t DESC',
  'count(*) AS n',
  'b.durationInMinutes, count(DISTINCT a) AS n ORDER BY n',
  'a.uid ORDER BY a.title SKIP 1 LIMIT 2',
  'b LIMIT $p',
  'a.monikers, b.status',
  'DISTINCT a ORDER BY a',
  'r, r.type AS t ORDER BY t',
  'count(r), b.uid IN $uids AS hit',
);
const shaped = fc
  .tuple(node('a'), relationship, node('b'), where, returns)
  .map(([a, rel, b, w, r]) => `MATCH ${a}${rel}${b}${w} RETURN ${r}`);

describe('query_graph answers every input with a result or a coded refusal', () => {
  it('given token soups and random parameters, when run, then no database error escapes', async () => {
    await fc.assert(
      fc.asyncProperty(soup, params, async (query, values) => {
        await outcome(query, values);
      }),
      { numRuns: 300 },
    );
  });

  it('given well-shaped queries with random parts, when run, then each is answered or refused by a bound', async () => {
    const seen: Outcome[] = [];
    await fc.assert(
      fc.asyncProperty(shaped, params, async (query, values) => {
        seen.push(await outcome(query, values));
      }),
      { numRuns: 300 },
    );
    // The generator reaches the database, not only the parser (about one run in ten answers
    // rows; the bound leaves room for an unlucky random draw).
    expect(seen.filter((answer) => answer === 'result').length).toBeGreaterThan(10);
  });

  it('given arbitrary text, when run, then it is refused with a code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (query) => {
        await outcome(query, {});
      }),
      { numRuns: 200 },
    );
  });
});
