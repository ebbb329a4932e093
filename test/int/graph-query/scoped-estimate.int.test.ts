import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED, type ReadScope } from '../../../services/access/grants.js';
import {
  createGraphQueryService,
  type GraphQueryService,
} from '../../../services/graph-query/service.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import {
  insertEdges,
  upsertNodes,
  openReadModelBed,
  type ReadModelBed,
} from '../../support/catalog-read-model.js';

/**
 * The blow-up guard estimates from counts within the caller's scope: whether a query is
 * refused, and the estimate it names, depend on what the caller may read only. Otherwise a
 * product-restricted caller learns how large the other products are by which queries pass.
 */

// alpha: a small complete graph; beta: a large one. Two hops over relatedTo, unanchored:
// alpha alone is 6·5·4 = 120 paths, with beta's 40·39·38 the estimate is far above the bound.
const ALPHA = 6;
const BETA = 40;
const BOUND = 5_000;
const QUERY = 'MATCH (a:Skill)-[:relatedTo]->(b)-[:relatedTo]->(c) RETURN a.uid, c.uid';

const ALPHA_ONLY: ReadScope = { types: '*', products: ['alpha'] };
const NO_SKILLS: ReadScope = { types: ['doc'], products: '*' };

let bed: ReadModelBed;
let graph: GraphQueryService;

const complete = (prefix: string, size: number, product: string) => {
  const uids = Array.from({ length: size }, (_, i) => `${prefix}${String(i)}`);
  return {
    nodes: uids.map((uid) => ({ uid, label: 'Skill', product })),
    edges: uids.flatMap((a) =>
      uids.filter((b) => b !== a).map((b) => [a, 'relatedTo', b] as const),
    ),
  };
};

const refusal = async (scope: ReadScope): Promise<CogitaveError | undefined> => {
  try {
    await graph.run(scope, QUERY);
    return undefined;
  } catch (error) {
    if (error instanceof CogitaveError) return error;
    throw error;
  }
};

beforeAll(async () => {
  bed = await openReadModelBed('graph_query_scoped_estimate');
  const alpha = complete('a', ALPHA, 'alpha');
  const beta = complete('b', BETA, 'beta');
  await upsertNodes(bed.database, [...alpha.nodes, ...beta.nodes]);
  await insertEdges(bed.database, [...alpha.edges, ...beta.edges]);
  graph = createGraphQueryService({ pool: bed.database.pool, maxEstimatedRows: BOUND });
});

afterAll(async () => {
  await bed.close();
});

describe('the traversal estimate within the scope', () => {
  it('given a large hidden product, when the unrestricted caller runs the pattern, then it is refused with the whole graph estimate', async () => {
    const error = await refusal(UNRESTRICTED);
    expect(error?.code).toBe('FAILED_PRECONDITION');
    expect(error?.details.bound).toBe('traversal');
    expect(Number(error?.details.estimatedRows)).toBeGreaterThan(BOUND);
  });

  it('given the same graph, when a caller granted only alpha runs it, then it runs over alpha alone', async () => {
    const result = await graph.run(ALPHA_ONLY, QUERY);
    expect(result.rowCount).toBeGreaterThan(0);
    expect(
      result.rows.every(
        (row) => String(row['a.uid']).startsWith('a') && String(row['c.uid']).startsWith('a'),
      ),
    ).toBe(true);
  });

  it('given a pattern that is refused within the scope too, then the estimate named counts the scope only', async () => {
    const wide = 'MATCH (a:Skill)-[:relatedTo*1..4]->(b) RETURN a.uid, b.uid';
    const scoped = await graph.run(ALPHA_ONLY, wide).catch((error: unknown) => error);
    const whole = await graph.run(UNRESTRICTED, wide).catch((error: unknown) => error);
    expect(whole).toBeInstanceOf(CogitaveError);
    const wholeRows = Number((whole as CogitaveError).details.estimatedRows);
    if (scoped instanceof CogitaveError) {
      expect(Number(scoped.details.estimatedRows)).toBeLessThan(wholeRows);
    } else {
      expect((scoped as { rowCount: number }).rowCount).toBeGreaterThan(0);
    }
  });

  it('given a caller without the skill type, then the pattern matches nothing and is not refused', async () => {
    const result = await graph.run(NO_SKILLS, QUERY);
    expect(result.rows).toEqual([]);
  });
});
