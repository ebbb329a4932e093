import type pg from 'pg';
import { resourceUri } from '../../projections/resources.js';
import type { ReadScope } from '../access/grants.js';
import { labelSpec } from '../catalog/vocabulary.js';
import { Cancelled, cancellable, QUERY_CANCELED } from '../database/cancel.js';
import { CogitaveError, Unavailable } from '../runtime/errors.js';
import { analyze, type Analysis } from './analyze.js';
import { GRAPH_QUERY_BOUNDS } from './bounds.js';
import {
  compileQuery,
  type CompiledQuery,
  type CompileLimits,
  type PathStrategy,
} from './compile.js';
import { refusedQuery } from './errors.js';
import { anchorRank, anchorUids, cardinality, estimateRows, type GraphStats } from './estimate.js';
import { parseQuery } from './parser.js';
import {
  createStatsCache,
  readDegree,
  readGraphStats,
  statsKeyOf,
  type StatsCache,
} from './stats.js';
import { checkParams, type QueryParams } from './values.js';

/** A node in a result row: enough to show it and to read it as a resource. */
export interface ResultNode {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly uri: string;
}

export interface GraphQueryResult {
  readonly columns: string[];
  /** One object per row, keyed by the RETURN aliases. */
  readonly rows: Record<string, unknown>[];
  /** More rows matched than LIMIT (or the default limit) let through. */
  readonly truncated: boolean;
  readonly rowCount: number;
  readonly elapsedMs: number;
}

export interface GraphQueryService {
  /**
   * Runs a query within the caller's scope (required; compiled into the SQL): nodes outside it
   * are never matched, walked through, returned or counted.
   */
  run(
    scope: ReadScope,
    query: string,
    params?: QueryParams,
    options?: GraphQueryRunOptions,
  ): Promise<GraphQueryResult>;
}

export interface GraphQueryRunOptions {
  /** Aborting it cancels the running statement in Postgres (the caller went away). */
  readonly signal?: AbortSignal;
  /** Told when the query reaches each step: statistics, estimate, execution. */
  readonly progress?: (step: number, total: number, message: string) => Promise<void>;
}

export interface GraphQueryOptions {
  readonly pool: pg.Pool;
  /** Statement timeout per query. */
  readonly timeoutMs?: number;
  /** Patterns estimated to produce more intermediate rows are refused before running. */
  readonly maxEstimatedRows?: number;
  /** How long the graph counts behind the estimate are reused. */
  readonly statsTtlMs?: number;
  readonly limits?: CompileLimits;
  readonly pathStrategy?: PathStrategy;
  readonly clock?: () => number;
}

export interface PreparedQuery {
  readonly analysis: Analysis;
  readonly compiled: CompiledQuery;
}

/** Parse, check against the vocabulary and compile: everything that needs no database. */
export const prepareGraphQuery = (
  source: string,
  params: QueryParams = {},
  options: {
    limits?: CompileLimits;
    pathStrategy?: PathStrategy;
    stats?: GraphStats;
    scope?: ReadScope;
  } = {},
): PreparedQuery => {
  checkParams(params);
  const query = parseQuery(source);
  const analysis = analyze(query, params);
  const { stats } = options;
  const compiled = compileQuery(query, analysis, params, {
    ...options,
    cardinality: (key) =>
      stats ? cardinality(key, analysis, stats, params) : anchorRank(key, analysis, params),
  });
  return { analysis, compiled };
};

/** Distinct scopes whose counts are kept (more is a misconfiguration; the cache then restarts). */
const MAX_STATS_SCOPES = 64;
/** Anchors with more uids than this are estimated from the mean fanout only. */
const MAX_DEGREE_LOOKUP = 100;

/**
 * The real degree of every uid-anchored node along each hop touching it, read from the
 * anchor's side: the blow-up guard then sees hubs that the mean fanout hides.
 */
const readAnchorDegrees = async (
  pool: pg.Pool,
  scope: ReadScope,
  analysis: Analysis,
  params: QueryParams,
): Promise<Map<string, number>> => {
  const lookups: Promise<[string, number]>[] = [];
  for (const key of analysis.nodes.keys()) {
    const uids = anchorUids(key, analysis, params)?.filter(
      (uid): uid is string => typeof uid === 'string',
    );
    if (uids === undefined || uids.length === 0 || uids.length > MAX_DEGREE_LOOKUP) continue;
    analysis.hops.forEach((hop, index) => {
      if (hop.left !== key && hop.right !== key) return;
      const outward = hop.left === key ? hop.direction : reverse(hop.direction);
      const sides: ('source' | 'target')[] =
        outward === 'out' ? ['source'] : outward === 'in' ? ['target'] : ['source', 'target'];
      lookups.push(
        Promise.all(sides.map((side) => readDegree(pool, scope, uids, hop.types, side))).then(
          (counts) => [`${key}\u0000${index}`, counts.reduce((a, b) => a + b, 0)],
        ),
      );
    });
  }
  return new Map(await Promise.all(lookups));
};

const reverse = (direction: 'out' | 'in' | 'both'): 'out' | 'in' | 'both' =>
  direction === 'out' ? 'in' : direction === 'in' ? 'out' : 'both';

export const createGraphQueryService = (options: GraphQueryOptions): GraphQueryService => {
  const timeoutMs = options.timeoutMs ?? GRAPH_QUERY_BOUNDS.defaultTimeoutMs;
  const maxEstimatedRows = options.maxEstimatedRows ?? GRAPH_QUERY_BOUNDS.defaultMaxEstimatedRows;
  const clock = options.clock ?? (() => performance.now());
  // Counts per scope (callers share a handful of grants; each gets the counts of its own).
  const statsByScope = new Map<string, StatsCache>();
  const statsFor = (scope: ReadScope): StatsCache => {
    const key = statsKeyOf(scope);
    let cache = statsByScope.get(key);
    if (!cache) {
      if (statsByScope.size >= MAX_STATS_SCOPES) statsByScope.clear();
      cache = createStatsCache(
        () => readGraphStats(options.pool, scope),
        options.statsTtlMs ?? 30_000,
      );
      statsByScope.set(key, cache);
    }
    return cache;
  };

  const execute = async (
    compiled: CompiledQuery,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>[]> => {
    const client = await options.pool.connect();
    try {
      await client.query('BEGIN TRANSACTION READ ONLY');
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
      const result = await cancellable(options.pool, client, signal, () =>
        client.query<Record<string, unknown>>(compiled.sql, [...compiled.values]),
      );
      await client.query('COMMIT');
      return result.rows;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof Cancelled) throw error;
      if ((error as { code?: unknown }).code === QUERY_CANCELED) {
        throw refusedQuery(
          'timeout',
          `The query ran longer than the ${timeoutMs} ms timeout and was cancelled; anchor the pattern (e.g. {uid: $uid}), use fewer hops or narrower types`,
          { timeoutMs },
        );
      }
      throw new CogitaveError(
        'INTERNAL',
        `The graph query failed in the database: ${(error as Error).message}`,
        {},
        { cause: error },
      );
    } finally {
      client.release();
    }
  };

  return {
    run: async (scope, source, params = {}, run = {}) => {
      const started = clock();
      const progress = run.progress ?? (() => Promise.resolve());
      // Static checks first: a malformed query never waits for the graph counts.
      prepareGraphQuery(source, params, { limits: options.limits });
      await progress(0, 3, 'reading the graph statistics');
      const graph = await statsFor(scope)
        .get()
        .catch((error: unknown) => {
          throw new Unavailable(
            `The graph statistics could not be read: ${(error as Error).message}`,
            {},
            { cause: error },
          );
        });
      const { analysis, compiled } = prepareGraphQuery(source, params, {
        limits: options.limits ?? GRAPH_QUERY_BOUNDS,
        pathStrategy: options.pathStrategy ?? 'recursive',
        stats: graph,
        scope,
      });
      const degrees = await readAnchorDegrees(options.pool, scope, analysis, params).catch(
        (error: unknown) => {
          throw new Unavailable(
            `The degrees of the anchored nodes could not be read: ${(error as Error).message}`,
            {},
            { cause: error },
          );
        },
      );
      await progress(1, 3, 'estimating the traversal');
      const estimated = estimateRows(analysis, graph, params, (key, hop) =>
        degrees.get(`${key}\u0000${hop}`),
      );
      if (estimated > maxEstimatedRows) {
        // The estimate counts the caller's scope only, so it may be told.
        throw refusedQuery(
          'traversal',
          `The pattern could expand to about ${formatCount(estimated)} paths, above the bound of ${formatCount(maxEstimatedRows)} paths; anchor a node (e.g. {uid: $uid}), name relationship types or use fewer hops`,
          { estimatedRows: Math.round(estimated), maxEstimatedRows },
        );
      }
      await progress(2, 3, 'running the query');
      const raw = await execute(compiled, run.signal);
      await progress(3, 3, 'done');
      const truncated = raw.length > compiled.limit;
      const rows = raw.slice(0, compiled.limit).map((row) => shapeRow(row, compiled));
      return {
        columns: compiled.columns.map((column) => column.name),
        rows,
        truncated,
        rowCount: rows.length,
        elapsedMs: Math.round((clock() - started) * 100) / 100,
      };
    },
  };
};

const shapeRow = (
  row: Record<string, unknown>,
  compiled: CompiledQuery,
): Record<string, unknown> => {
  const shaped: Record<string, unknown> = {};
  compiled.columns.forEach((column, i) => {
    const value = row[`c${i}`];
    if (column.kind === 'count') shaped[column.name] = Number(value);
    else if (column.kind === 'node' && value !== null && typeof value === 'object') {
      shaped[column.name] = withUri(value as Omit<ResultNode, 'uri'>);
    } else shaped[column.name] = value ?? null;
  });
  return shaped;
};

const withUri = (node: Omit<ResultNode, 'uri'>): ResultNode => ({
  ...node,
  uri: resourceUri(labelSpec(node.label)?.resourceType ?? node.label.toLowerCase(), node.uid),
});

const formatCount = (n: number): string =>
  n >= 1e9 ? `${(n / 1e9).toFixed(1)} billion` : Math.round(n).toLocaleString('en-US');
