import {
  isUnrestricted,
  mayReadType,
  productInScopeSql,
  scopeSqlValues,
  UNRESTRICTED,
  type ReadScope,
} from '../access/grants.js';
import {
  CATALOG_EDGES,
  CATALOG_GRAPH_NODES,
  CATALOG_NODES,
  EDGE_COLUMN as EDGE,
} from '../catalog/read-model/graph-queries.js';
import { labelsInScope } from '../catalog/vocabulary.js';
import { REQUEST_GRAPH_NODES } from '../requests/read-model/graph-queries.js';
import type { Expr, Query, Value } from './ast.js';
import type { Analysis, HopBinding, NodeBinding } from './analyze.js';
import { GRAPH_QUERY_BOUNDS } from './bounds.js';
import { invalidQuery } from './errors.js';
import { constantValue, type QueryParams } from './values.js';

/**
 * Compiles an analysed query to one parameterised SQL statement over the read model. Nothing
 * from the query text reaches the SQL except through fixed fragments chosen here: labels and
 * edge types (already checked against the vocabulary), attribute names and every value are
 * bind parameters; variables become generated aliases (n0, e0, c0...).
 *
 * The caller's read scope is compiled in: every node a pattern binds, and every node a
 * variable-length walk passes through, must be in it, so what the scope hides is never
 * matched, returned or counted (`MATCH (n) RETURN count(*)` counts the scope's nodes).
 */

export type ColumnKind = 'node' | 'relationship' | 'count' | 'value';

export interface CompiledColumn {
  readonly name: string;
  readonly kind: ColumnKind;
}

export interface CompiledQuery {
  readonly sql: string;
  readonly values: readonly unknown[];
  readonly columns: readonly CompiledColumn[];
  readonly limit: number;
  readonly skip: number;
}

export interface CompileLimits {
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly maxSkip: number;
}

/**
 * How variable-length relationships run: `recursive` walks from the more selective end in a
 * recursive CTE (LATERAL, path array against revisits); `unrolled` joins the edges table once
 * per hop, one branch per length (and per direction when undirected). See the benchmark.
 */
export type PathStrategy = 'recursive' | 'unrolled';

export interface CompileOptions {
  readonly limits?: CompileLimits;
  readonly pathStrategy?: PathStrategy;
  /** Nodes a variable may match before any hop (picks the end a walk starts from). */
  readonly cardinality?: (key: string) => number;
  /** What the caller may read (default: everything, for the system's own queries). */
  readonly scope?: ReadScope;
}

/**
 * Node properties stored as columns of the node relations (the catalog's nodes and the request
 * rows shaped like them); every other property name is an attribute.
 */
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['uid', 'label', 'title', 'summary', 'product']);
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RELATIONSHIP_PROPERTIES: Readonly<
  Record<string, { column: string; type: 'text' | 'jsonb' }>
> = {
  type: { column: 'ty', type: 'text' },
  source: { column: 'es', type: 'text' },
  target: { column: 'et', type: 'text' },
  origin: { column: 'origin', type: 'text' },
  ordinal: { column: 'ordinal', type: 'jsonb' },
};

type Operand =
  | { readonly type: 'text' | 'jsonb' | 'textarray' | 'bool'; readonly sql: string }
  | { readonly type: 'node' | 'rel'; readonly alias: string }
  | { readonly type: 'value'; readonly value: Value };

const ORDERING: ReadonlySet<string> = new Set(['<', '<=', '>', '>=']);

/** Structural identity of two expressions (positions ignored): ORDER BY finds RETURN items. */
export const exprKey = (expr: Expr): string =>
  JSON.stringify(expr, (key, value: unknown) => (key === 'at' ? undefined : value));

class Binder {
  readonly values: unknown[] = [];
  readonly #keys = new Map<string, string>();

  bind(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }

  /** The same attribute name binds once, so equal expressions stay textually equal. */
  key(name: string): string {
    return this.once(`key:${name}`, name, 'text');
  }

  /** Binds `value` once under `key`; later calls reuse the placeholder. */
  once(key: string, value: unknown, cast: string): string {
    const known = this.#keys.get(key);
    if (known) return known;
    const placeholder = this.bind(value, cast);
    this.#keys.set(key, placeholder);
    return placeholder;
  }
}

export const compileQuery = (
  query: Query,
  analysis: Analysis,
  params: QueryParams,
  options: CompileOptions = {},
): CompiledQuery =>
  new Compiler(analysis, params, options).compile(query, options.limits ?? GRAPH_QUERY_BOUNDS);

class Compiler {
  readonly #b = new Binder();
  readonly #scope: ReadScope;

  constructor(
    private readonly analysis: Analysis,
    private readonly params: QueryParams,
    private readonly options: CompileOptions,
  ) {
    this.#scope = options.scope ?? UNRESTRICTED;
  }

  // ---- scope ---------------------------------------------------------------------------------

  /** The condition that catalog node `alias` is in the scope; undefined when everything is. */
  private catalogInScope(alias: string): string | undefined {
    if (isUnrestricted(this.#scope)) return undefined;
    const labels = labelsInScope(this.#scope, 'catalog');
    const { products } = scopeSqlValues(this.#scope);
    const parts: string[] = [];
    if (labels !== null) {
      parts.push(`${alias}.label = ANY(${this.#b.once('scope:labels', labels, 'text[]')})`);
    }
    if (products !== null) {
      const bound = this.#b.once('scope:products', products, 'text[]');
      parts.push(productInScopeSql(`${alias}.product`, bound));
    }
    return parts.length === 0 ? undefined : `(${parts.join(' AND ')})`;
  }

  /** The WHERE of the request nodes' source: nothing without the type, the scope's products. */
  private requestsInScope(): string {
    if (!mayReadType(this.#scope, 'request')) return ' WHERE FALSE';
    const { products } = scopeSqlValues(this.#scope);
    if (products === null) return '';
    return ` WHERE ${productInScopeSql('product', this.#b.once('scope:products', products, 'text[]'))}`;
  }

  /** A walk step may only pass through a node the scope shows (`uid` is the next node). */
  private stepInScope(uid: string): string {
    const condition = this.catalogInScope('v');
    return condition === undefined
      ? ''
      : ` AND EXISTS (SELECT 1 FROM ${CATALOG_NODES} v WHERE v.uid = ${uid} AND ${condition})`;
  }

  compile(query: Query, limits: CompileLimits): CompiledQuery {
    const { from, where } = this.matchClause();
    const inner: string[] = [];
    const outer: string[] = [];
    const groupBy: string[] = [];
    const columns: CompiledColumn[] = [];
    const aggregated = query.returns.some((item) => item.expr.kind === 'count');
    query.returns.forEach((item, i) => {
      if (columns.some((column) => column.name === item.alias)) {
        throw invalidQuery(
          'syntax',
          `Column name "${item.alias.slice(0, 100)}" is returned twice; give one an alias with AS`,
        );
      }
      if (item.expr.kind === 'count') {
        outer.push(`${this.countSql(item.expr, `a${i}`, inner)} AS c${i}`);
        columns.push({ name: item.alias, kind: 'count' });
        return;
      }
      const operand = this.operand(item.expr);
      inner.push(`${this.selectSql(operand)} AS c${i}`);
      outer.push(`c${i}`);
      groupBy.push(`c${i}`);
      columns.push({ name: item.alias, kind: columnKind(operand) });
    });
    const orderBy = query.orderBy.map((sort, j) => {
      const key = exprKey(sort.expr);
      const index = query.returns.findIndex(
        (item) =>
          exprKey(item.expr) === key ||
          (sort.expr.kind === 'variable' && sort.expr.name === item.alias),
      );
      const direction = sort.descending ? 'DESC' : 'ASC';
      if (index >= 0) return `c${index} ${direction}`;
      if (query.distinct || aggregated) {
        throw invalidQuery(
          'syntax',
          `ORDER BY after RETURN DISTINCT or count() must name a returned column (at offset ${sort.expr.at})`,
        );
      }
      inner.push(`${this.selectSql(this.operand(sort.expr))} AS o${j}`);
      return `o${j} ${direction}`;
    });
    const { limit, skip } = this.paging(query, limits);
    if (inner.length === 0) inner.push('1 AS one');
    const sql = [
      `SELECT ${query.distinct ? 'DISTINCT ' : ''}${outer.join(', ')}`,
      `FROM (SELECT ${inner.join(', ')} FROM ${from.join(', ')}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}) q`,
      aggregated && groupBy.length > 0 ? `GROUP BY ${groupBy.join(', ')}` : '',
      orderBy.length > 0 ? `ORDER BY ${orderBy.join(', ')}` : '',
      `OFFSET ${this.#b.bind(skip, 'bigint')} LIMIT ${this.#b.bind(limit + 1, 'bigint')}`,
    ]
      .filter((part) => part !== '')
      .join('\n');
    return { ...renumber(sql, this.#b.values), columns, limit, skip };
  }

  // ---- MATCH ---------------------------------------------------------------------------------

  private matchClause(): { from: string[]; where: string[] } {
    const from: string[] = [];
    const where: string[] = [];
    const { nodes, hops } = this.analysis;
    for (const node of nodes.values()) {
      from.push(`${this.nodeSource(node)} ${node.alias}`);
      if (node.label !== undefined && node.label !== 'Request') {
        where.push(`${node.alias}.label = ${this.#b.bind(node.label, 'text')}`);
        const inScope = this.catalogInScope(node.alias);
        if (inScope !== undefined) where.push(inScope);
      }
      for (const condition of node.conditions) where.push(this.predicate(condition));
    }
    hops.forEach((hop) => {
      const left = nodes.get(hop.left);
      const right = nodes.get(hop.right);
      if (!left || !right) throw new Error(`hop ${hop.alias} has an unbound end`);
      if (hop.variableLength && this.options.pathStrategy !== 'unrolled') {
        // Walk from the end that matches fewer nodes; the walk ends on the other one.
        const cardinality = this.options.cardinality ?? (() => 0);
        const reverse = cardinality(hop.right) < cardinality(hop.left);
        const [start, end] = reverse ? [right, left] : [left, right];
        from.push(`${this.walkRelation(hop, start.alias, reverse)} ${hop.alias}`);
        where.push(`${hop.alias}.t = ${end.alias}.uid`);
        return;
      }
      from.push(
        `${hop.variableLength ? this.pathRelation(hop) : this.edgeRelation(hop)} ${hop.alias}`,
      );
      where.push(`${hop.alias}.s = ${left.alias}.uid`, `${hop.alias}.t = ${right.alias}.uid`);
    });
    // openCypher binds one relationship at most once per pattern.
    const single = hops.filter((hop) => !hop.variableLength);
    single.forEach((a, i) => {
      for (const b of single.slice(i + 1)) {
        const overlap =
          a.types.length === 0 || b.types.length === 0 || a.types.some((t) => b.types.includes(t));
        if (overlap) {
          where.push(
            `(${a.alias}.es, ${a.alias}.ty, ${a.alias}.et) <> (${b.alias}.es, ${b.alias}.ty, ${b.alias}.et)`,
          );
        }
      }
    });
    for (const conjunct of this.analysis.conjuncts) where.push(this.predicate(conjunct));
    return { from, where };
  }

  private nodeSource(node: NodeBinding): string {
    const requests = `${REQUEST_GRAPH_NODES}${this.requestsInScope()}`;
    if (node.label === 'Request') return `(${requests})`;
    if (node.label !== undefined) return CATALOG_NODES;
    const inScope = this.catalogInScope('c');
    const catalog =
      inScope === undefined ? CATALOG_GRAPH_NODES : `${CATALOG_GRAPH_NODES} c WHERE ${inScope}`;
    return `(${catalog} UNION ALL ${requests})`;
  }

  /** Edges oriented from the pattern's left node (s) to its right node (t). */
  private edgeRelation(hop: HopBinding): string {
    const filter =
      hop.types.length > 0 ? ` WHERE ${EDGE.type} = ANY(${this.#b.bind(hop.types, 'text[]')})` : '';
    const rest = `${EDGE.type} AS ty, ${EDGE.source} AS es, ${EDGE.target} AS et, ${EDGE.ordinal}, ${EDGE.origin} FROM ${CATALOG_EDGES}${filter}`;
    const out = `SELECT ${EDGE.source} AS s, ${EDGE.target} AS t, ${rest}`;
    const back = `SELECT ${EDGE.target} AS s, ${EDGE.source} AS t, ${rest}`;
    if (hop.direction === 'out') return `(${out})`;
    if (hop.direction === 'in') return `(${back})`;
    return `(${out} UNION ALL ${back})`;
  }

  /** A variable-length relationship as a recursive walk from one end node (LATERAL). */
  private walkRelation(hop: HopBinding, start: string, reverse: boolean): string {
    const direction =
      reverse && hop.direction !== 'both'
        ? hop.direction === 'out'
          ? 'in'
          : 'out'
        : hop.direction;
    const filter =
      hop.types.length > 0 ? ` AND e.${EDGE.type} = ANY(${this.#b.bind(hop.types, 'text[]')})` : '';
    const steps: string[] = [];
    if (direction !== 'in') {
      steps.push(
        `SELECT e.${EDGE.target} AS next FROM ${CATALOG_EDGES} e WHERE e.${EDGE.source} = w.t${filter}${this.stepInScope(`e.${EDGE.target}`)}`,
      );
    }
    if (direction !== 'out') {
      steps.push(
        `SELECT e.${EDGE.source} AS next FROM ${CATALOG_EDGES} e WHERE e.${EDGE.target} = w.t${filter}${this.stepInScope(`e.${EDGE.source}`)}`,
      );
    }
    const min = this.#b.bind(hop.minHops, 'int');
    const max = this.#b.bind(hop.maxHops, 'int');
    return [
      `LATERAL (WITH RECURSIVE walk(t, path, depth) AS (`,
      `SELECT ${start}.uid, ARRAY[${start}.uid], 0`,
      `UNION ALL SELECT x.next, w.path || x.next, w.depth + 1 FROM walk w`,
      `CROSS JOIN LATERAL (${steps.join(' UNION ALL ')}) x`,
      `WHERE w.depth < ${max} AND x.next <> ALL(w.path))`,
      `SELECT t FROM walk WHERE depth >= ${min})`,
    ].join(' ');
  }

  /**
   * A variable-length relationship unrolled into one join chain per length (and, undirected,
   * per choice of direction at each step), never revisiting a node. Each branch joins the
   * edges table itself, so the planner keeps its statistics and indexes and can start from
   * whichever end is anchored; a UNION inside the chain would hide both.
   */
  private pathRelation(hop: HopBinding): string {
    const filter = hop.types.length > 0 ? this.#b.bind(hop.types, 'text[]') : undefined;
    const ends = { out: [EDGE.source, EDGE.target], in: [EDGE.target, EDGE.source] } as const;
    const branches: string[] = [];
    for (let length = hop.minHops; length <= hop.maxHops; length += 1) {
      for (const directions of directionChoices(hop.direction, length)) {
        const from = (k: number) => `h${k}.${ends[directions[k - 1] ?? 'out'][0]}`;
        const to = (k: number) => `h${k}.${ends[directions[k - 1] ?? 'out'][1]}`;
        const joins = [`${CATALOG_EDGES} h1`];
        const conditions = filter ? [`h1.${EDGE.type} = ANY(${filter})`] : [];
        const visited = [from(1)];
        for (let k = 1; k <= length; k += 1) {
          if (k > 1) {
            joins.push(`JOIN ${CATALOG_EDGES} h${k} ON ${from(k)} = ${to(k - 1)}`);
            if (filter) conditions.push(`h${k}.${EDGE.type} = ANY(${filter})`);
          }
          for (const earlier of visited) conditions.push(`${to(k)} <> ${earlier}`);
          // The ends are pattern nodes (scoped there); the nodes between must be shown too.
          if (k < length) {
            const inScope = this.stepInScope(to(k));
            if (inScope !== '') conditions.push(inScope.replace(/^ AND /, ''));
          }
          visited.push(to(k));
        }
        branches.push(
          `SELECT ${from(1)} AS s, ${to(length)} AS t FROM ${joins.join(' ')} WHERE ${conditions.join(' AND ')}`,
        );
      }
    }
    return `(${branches.join(' UNION ALL ')})`;
  }

  // ---- RETURN / paging -------------------------------------------------------------------------

  private countSql(expr: Expr & { kind: 'count' }, name: string, inner: string[]): string {
    if (expr.argument === undefined) return 'count(*)';
    if (expr.argument.kind === 'count') {
      throw invalidQuery('function', `count() cannot be nested (at offset ${expr.at})`);
    }
    const operand = this.operand(expr.argument);
    const sql =
      operand.type === 'node'
        ? `${operand.alias}.uid`
        : operand.type === 'jsonb'
          ? `NULLIF(${operand.sql}, 'null'::jsonb)`
          : this.selectSql(operand);
    inner.push(`${sql} AS ${name}`);
    return `count(${expr.distinct ? 'DISTINCT ' : ''}${name})`;
  }

  private selectSql(operand: Operand): string {
    switch (operand.type) {
      case 'node':
        return `jsonb_build_object('uid', ${operand.alias}.uid, 'label', ${operand.alias}.label, 'title', ${operand.alias}.title)`;
      case 'rel':
        return `jsonb_build_object('type', ${operand.alias}.ty, 'source', ${operand.alias}.es, 'target', ${operand.alias}.et)`;
      case 'value':
        return this.jsonb(operand);
      default:
        return operand.sql;
    }
  }

  private paging(query: Query, limits: CompileLimits): { limit: number; skip: number } {
    const count = (expr: Expr | undefined, clause: 'LIMIT' | 'SKIP'): number | undefined => {
      if (expr === undefined) return undefined;
      const value = constantValue(expr, this.params);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw invalidQuery(
          clause === 'LIMIT' ? 'limit' : 'skip',
          `${clause} must be a whole number ≥ 0 (got ${value === undefined ? 'nothing' : JSON.stringify(value)})`,
        );
      }
      return value;
    };
    const limit = count(query.limit, 'LIMIT') ?? limits.defaultLimit;
    const skip = count(query.skip, 'SKIP') ?? 0;
    if (limit > limits.maxLimit) {
      throw invalidQuery(
        'limit',
        `LIMIT ${limit} exceeds the maximum of ${limits.maxLimit} rows; page with SKIP or narrow the query`,
        { maxLimit: limits.maxLimit, requested: limit },
      );
    }
    if (skip > limits.maxSkip) {
      throw invalidQuery(
        'skip',
        `SKIP ${skip} exceeds the maximum of ${limits.maxSkip}; narrow the query with WHERE instead of paging this deep`,
        { maxSkip: limits.maxSkip, requested: skip },
      );
    }
    return { limit, skip };
  }

  // ---- expressions ---------------------------------------------------------------------------

  private operand(expr: Expr): Operand {
    switch (expr.kind) {
      case 'variable': {
        const node = this.analysis.nodes.get(expr.name);
        if (node) return { type: 'node', alias: node.alias };
        const hop = this.hopOf(expr.name);
        return { type: 'rel', alias: hop.alias };
      }
      case 'property':
        return this.property(expr);
      case 'literal':
      case 'param':
      case 'list': {
        const value = constantValue(expr, this.params);
        if (value === undefined) throw new Error('constant without a value');
        return { type: 'value', value };
      }
      case 'count':
        throw invalidQuery(
          'function',
          `count() is allowed only as a RETURN item (at offset ${expr.at})`,
        );
      default:
        return { type: 'bool', sql: this.predicate(expr) };
    }
  }

  private hopOf(name: string): HopBinding {
    const index = this.analysis.relationships.get(name);
    const hop = index === undefined ? undefined : this.analysis.hops[index];
    if (!hop) throw invalidQuery('variable', `Unknown variable "${name.slice(0, 100)}"`);
    return hop;
  }

  private property(expr: Expr & { kind: 'property' }): Operand {
    if (!PROPERTY_NAME.test(expr.key)) {
      throw invalidQuery(
        'property',
        `Property name ${JSON.stringify(expr.key.slice(0, 100))} is not allowed (at offset ${expr.at}); property names are letters, digits and _ (at most 64)`,
        { property: expr.key.slice(0, 100) },
      );
    }
    const node = this.analysis.nodes.get(expr.variable);
    if (node) {
      if (TEXT_COLUMNS.has(expr.key)) return { type: 'text', sql: `${node.alias}.${expr.key}` };
      if (expr.key === 'monikers') return { type: 'textarray', sql: `${node.alias}.monikers` };
      return { type: 'jsonb', sql: `${node.alias}.attributes -> ${this.#b.key(expr.key)}` };
    }
    const hop = this.hopOf(expr.variable);
    const column = RELATIONSHIP_PROPERTIES[expr.key];
    if (!column) {
      throw invalidQuery(
        'property',
        `Relationships have the properties ${Object.keys(RELATIONSHIP_PROPERTIES).join(', ')}; "${expr.key}" is not one (at offset ${expr.at})`,
        { property: expr.key },
      );
    }
    const sql = `${hop.alias}.${column.column}`;
    return column.type === 'text'
      ? { type: 'text', sql }
      : { type: 'jsonb', sql: `to_jsonb(${sql})` };
  }

  predicate(expr: Expr): string {
    switch (expr.kind) {
      case 'and':
      case 'or':
        return `(${this.predicate(expr.left)} ${expr.kind.toUpperCase()} ${this.predicate(expr.right)})`;
      case 'not':
        return `(NOT ${this.predicate(expr.operand)})`;
      case 'isNull':
        return this.isNull(this.operand(expr.operand), expr.negated);
      case 'compare':
        return this.compare(expr);
      default:
        return this.truth(this.operand(expr), expr.at);
    }
  }

  private truth(operand: Operand, at: number): string {
    if (operand.type === 'bool') return operand.sql;
    if (operand.type === 'jsonb') return `(${operand.sql} = 'true'::jsonb)`;
    if (
      operand.type === 'value' &&
      (typeof operand.value === 'boolean' || operand.value === null)
    ) {
      return operand.value === null ? 'NULL::boolean' : operand.value ? 'TRUE' : 'FALSE';
    }
    throw invalidQuery(
      'operator',
      `That expression is not a condition (at offset ${at}); compare it, e.g. n.title = $title`,
    );
  }

  private isNull(operand: Operand, negated: boolean): string {
    const not = negated ? 'NOT ' : '';
    switch (operand.type) {
      case 'node':
      case 'rel':
        return negated ? 'TRUE' : 'FALSE';
      case 'value':
        return (operand.value === null) !== negated ? 'TRUE' : 'FALSE';
      case 'jsonb':
        return negated
          ? `(${operand.sql} IS NOT NULL AND ${operand.sql} <> 'null'::jsonb)`
          : `(${operand.sql} IS NULL OR ${operand.sql} = 'null'::jsonb)`;
      default:
        return `(${operand.sql} IS ${not}NULL)`;
    }
  }

  private compare(expr: Expr & { kind: 'compare' }): string {
    const left = this.operand(expr.left);
    const right = this.operand(expr.right);
    if (expr.op === 'IN') return this.membership(left, right, expr.at);
    const isEntity = (o: Operand) => o.type === 'node' || o.type === 'rel';
    if (isEntity(left) || isEntity(right)) return this.entityEquality(expr, left, right);
    if (expr.op === 'STARTS WITH' || expr.op === 'ENDS WITH' || expr.op === 'CONTAINS') {
      const l = this.text(left);
      const r = this.text(right);
      if (expr.op === 'STARTS WITH') return `starts_with(${l}, ${r})`;
      if (expr.op === 'CONTAINS') return `(strpos(${l}, ${r}) > 0)`;
      return `(right(${l}, char_length(${r})) = ${r})`;
    }
    if (isNullValue(left) || isNullValue(right)) return 'NULL::boolean';
    const textual = (o: Operand) =>
      o.type === 'text' || (o.type === 'value' && typeof o.value === 'string');
    if (textual(left) && textual(right) && (left.type === 'text' || right.type === 'text')) {
      return `(${this.text(left)} ${expr.op} ${this.text(right)})`;
    }
    const l = this.jsonb(left);
    const r = this.jsonb(right);
    if (!ORDERING.has(expr.op)) return `(${l} ${expr.op} ${r})`;
    // jsonb orders values of different types too; openCypher does not compare them.
    return `(jsonb_typeof(${l}) = jsonb_typeof(${r}) AND jsonb_typeof(${l}) IN ('string', 'number', 'boolean') AND ${l} ${expr.op} ${r})`;
  }

  private entityEquality(expr: Expr & { kind: 'compare' }, left: Operand, right: Operand): string {
    if ((expr.op === '=' || expr.op === '<>') && left.type === right.type) {
      if (left.type === 'node' && right.type === 'node') {
        return `(${left.alias}.uid ${expr.op} ${right.alias}.uid)`;
      }
      if (left.type === 'rel' && right.type === 'rel') {
        return `((${left.alias}.es, ${left.alias}.ty, ${left.alias}.et) ${expr.op} (${right.alias}.es, ${right.alias}.ty, ${right.alias}.et))`;
      }
    }
    throw invalidQuery(
      'operator',
      `Nodes and relationships can only be compared with = or <> to another of their kind (at offset ${expr.at}); compare their properties instead (e.g. a.uid = $uid)`,
    );
  }

  private membership(left: Operand, right: Operand, at: number): string {
    if (right.type === 'value') {
      if (right.value === null) return 'NULL::boolean';
      if (!Array.isArray(right.value)) {
        throw invalidQuery('operator', `IN needs a list on its right (at offset ${at})`);
      }
      const items: readonly unknown[] = right.value;
      if (left.type === 'text' && items.every((item) => typeof item === 'string')) {
        return `(${left.sql} = ANY(${this.#b.bind(items, 'text[]')}))`;
      }
    } else if (right.type === 'textarray') {
      if (left.type === 'text' || (left.type === 'value' && typeof left.value === 'string')) {
        return `(${this.text(left)} = ANY(${right.sql}))`;
      }
    } else if (right.type !== 'jsonb') {
      throw invalidQuery('operator', `IN needs a list on its right (at offset ${at})`);
    }
    if (left.type === 'node' || left.type === 'rel') {
      throw invalidQuery(
        'operator',
        `Test a property with IN, not a node (at offset ${at}), e.g. n.uid IN $uids`,
      );
    }
    const l = this.jsonb(left);
    const r = this.jsonb(right);
    return `(CASE WHEN ${l} IS NULL OR ${l} = 'null'::jsonb THEN NULL ELSE jsonb_typeof(${r}) = 'array' AND ${r} @> jsonb_build_array(${l}) END)`;
  }

  private text(operand: Operand): string {
    switch (operand.type) {
      case 'text':
        return operand.sql;
      case 'jsonb':
        return `(CASE WHEN jsonb_typeof(${operand.sql}) = 'string' THEN ${operand.sql} #>> '{}' END)`;
      case 'value':
        return typeof operand.value === 'string'
          ? this.#b.bind(operand.value, 'text')
          : 'NULL::text';
      case 'node':
      case 'rel':
        throw invalidQuery('operator', 'String operators apply to properties, not to nodes');
      default:
        return 'NULL::text';
    }
  }

  private jsonb(operand: Operand): string {
    switch (operand.type) {
      case 'jsonb':
        return operand.sql;
      case 'text':
      case 'textarray':
      case 'bool':
        return `to_jsonb(${operand.sql})`;
      case 'value':
        return operand.value === null
          ? 'NULL::jsonb'
          : this.#b.bind(JSON.stringify(operand.value), 'jsonb');
      case 'node':
      case 'rel':
        throw invalidQuery('operator', 'Compare node properties, not nodes, with values');
    }
  }
}

/**
 * Drops parameters the SQL ended up not using (an operand compiled and then discarded, e.g.
 * `x = null` folding to NULL): Postgres cannot type an unreferenced parameter. Placeholders
 * are the only `$n::` in the text, since no query text reaches the SQL.
 */
const renumber = (sql: string, values: readonly unknown[]): { sql: string; values: unknown[] } => {
  const used = new Map<number, number>();
  const kept: unknown[] = [];
  const text = sql.replace(/\$(\d+)::/g, (_match, digits: string) => {
    const index = Number(digits);
    let next = used.get(index);
    if (next === undefined) {
      kept.push(values[index - 1]);
      next = kept.length;
      used.set(index, next);
    }
    return `$${next}::`;
  });
  return { sql: text, values: kept };
};

/** Every sequence of step directions a path of `length` hops may take. */
const directionChoices = (
  direction: HopBinding['direction'],
  length: number,
): ('out' | 'in')[][] => {
  if (direction !== 'both') return [Array.from({ length }, () => direction)];
  const shorter = length === 1 ? [[]] : directionChoices('both', length - 1);
  return shorter.flatMap((rest) => [
    ['out' as const, ...rest],
    ['in' as const, ...rest],
  ]);
};

const isNullValue = (operand: Operand): boolean =>
  operand.type === 'value' && operand.value === null;

const columnKind = (operand: Operand): ColumnKind =>
  operand.type === 'node' ? 'node' : operand.type === 'rel' ? 'relationship' : 'value';
