import { edgeTypeNames, labelNames } from '../catalog/vocabulary.js';
import type { Expr, Query, RelationshipPattern } from './ast.js';
import { GRAPH_QUERY_BOUNDS } from './bounds.js';
import { invalidQuery } from './errors.js';
import { constantValue, type QueryParams } from './values.js';

/** A node variable of the pattern (named, or one per anonymous `()`), with its SQL alias. */
export interface NodeBinding {
  readonly key: string;
  readonly alias: string;
  readonly label: string | undefined;
  /** Inline `{key: value}` properties, as equality conditions. */
  readonly conditions: readonly Expr[];
}

/** One relationship of the pattern, oriented from its left node to its right node. */
export interface HopBinding {
  readonly alias: string;
  readonly variable: string | undefined;
  readonly left: string;
  readonly right: string;
  readonly types: readonly string[];
  readonly direction: RelationshipPattern['direction'];
  readonly minHops: number;
  readonly maxHops: number;
  readonly variableLength: boolean;
}

export interface Analysis {
  readonly nodes: ReadonlyMap<string, NodeBinding>;
  readonly hops: readonly HopBinding[];
  /** Relationship variable → index into `hops`. */
  readonly relationships: ReadonlyMap<string, number>;
  /** Top-level AND-ed conditions of WHERE. */
  readonly conjuncts: readonly Expr[];
}

const listAllowed = (names: readonly string[]): string => names.join(', ');

const checkLabel = (label: string, at: number): string => {
  if (!labelNames.includes(label)) {
    throw invalidQuery(
      'label',
      `Unknown label "${label.slice(0, 100)}" (at offset ${at}); the labels allowed are ${listAllowed(labelNames)}`,
      { label: label.slice(0, 100), allowed: labelNames },
    );
  }
  return label;
};

const checkEdgeType = (type: string, at: number): string => {
  if (!edgeTypeNames.includes(type)) {
    throw invalidQuery(
      'edgeType',
      `Unknown relationship type "${type.slice(0, 100)}" (at offset ${at}); the types allowed are ${listAllowed(edgeTypeNames)}`,
      { edgeType: type.slice(0, 100), allowed: edgeTypeNames },
    );
  }
  return type;
};

export const splitConjuncts = (expr: Expr | undefined): Expr[] =>
  expr === undefined
    ? []
    : expr.kind === 'and'
      ? [...splitConjuncts(expr.left), ...splitConjuncts(expr.right)]
      : [expr];

/** Variables an expression reads. */
export const variablesOf = (expr: Expr): string[] => {
  switch (expr.kind) {
    case 'variable':
      return [expr.name];
    case 'property':
      return [expr.variable];
    case 'literal':
    case 'param':
      return [];
    case 'list':
      return expr.items.flatMap(variablesOf);
    case 'compare':
    case 'and':
    case 'or':
      return [...variablesOf(expr.left), ...variablesOf(expr.right)];
    case 'not':
    case 'isNull':
      return variablesOf(expr.operand);
    case 'count':
      return expr.argument ? variablesOf(expr.argument) : [];
  }
};

/**
 * Binds the pattern's variables, checks labels and types against the closed vocabulary, and
 * refuses disconnected patterns that nothing in WHERE joins (a cartesian product).
 */
export const analyze = (query: Query, params: QueryParams): Analysis => {
  const nodes = new Map<string, NodeBinding>();
  const conditions = new Map<string, Expr[]>();
  const hops: HopBinding[] = [];
  const relationships = new Map<string, number>();
  let anonymous = 0;

  const bindNode = (
    variable: string | undefined,
    labels: readonly string[],
    at: number,
  ): NodeBinding => {
    if (variable !== undefined && relationships.has(variable)) {
      throw invalidQuery(
        'variable',
        `"${variable}" names a relationship and a node (at offset ${at})`,
        { variable },
      );
    }
    const key = variable ?? `#${anonymous++}`;
    const known = nodes.get(key);
    const checked = labels.map((label) => checkLabel(label, at));
    const all = [...new Set([...(known?.label ? [known.label] : []), ...checked])];
    if (all.length > 1) {
      throw invalidQuery(
        'label',
        `Every node has exactly one label, but ${variable ?? 'a node'} is given ${all.join(' and ')} (at offset ${at})`,
        { labels: all },
      );
    }
    const binding: NodeBinding = {
      key,
      alias: known?.alias ?? `n${nodes.size}`,
      label: all[0],
      conditions: [],
    };
    nodes.set(key, binding);
    return binding;
  };

  for (const chain of query.patterns) {
    const keys = chain.nodes.map((node) => {
      const binding = bindNode(node.variable, node.labels, node.at);
      const list = conditions.get(binding.key) ?? [];
      for (const { key, value } of node.properties) {
        const property: Expr = { kind: 'property', variable: binding.key, key, at: node.at };
        list.push({ kind: 'compare', op: '=', left: property, right: value, at: node.at });
      }
      conditions.set(binding.key, list);
      return binding.key;
    });
    chain.relationships.forEach((rel, index) => {
      const types = [...new Set(rel.types.map((type) => checkEdgeType(type, rel.at)))];
      if (rel.variable !== undefined) {
        if (nodes.has(rel.variable) || relationships.has(rel.variable)) {
          throw invalidQuery(
            'variable',
            `Relationship variable "${rel.variable}" is already bound (at offset ${rel.at}); each relationship variable names one relationship`,
            { variable: rel.variable },
          );
        }
        if (rel.variableLength) {
          throw invalidQuery(
            'variable',
            `A variable-length relationship cannot be bound to a variable (at offset ${rel.at}); drop "${rel.variable}" and return the end nodes`,
            { variable: rel.variable },
          );
        }
        relationships.set(rel.variable, hops.length);
      }
      hops.push({
        alias: `e${hops.length}`,
        variable: rel.variable,
        left: keys[index] ?? '',
        right: keys[index + 1] ?? '',
        types,
        direction: rel.direction,
        minHops: rel.minHops,
        maxHops: rel.maxHops,
        variableLength: rel.variableLength,
      });
    });
  }
  for (const [key, list] of conditions) {
    const binding = nodes.get(key);
    if (binding) nodes.set(key, { ...binding, conditions: list });
  }

  const { maxNodePatterns } = GRAPH_QUERY_BOUNDS;
  if (nodes.size > maxNodePatterns || hops.length > maxNodePatterns) {
    throw invalidQuery(
      'patternSize',
      `The pattern names ${nodes.size} nodes and ${hops.length} relationships; at most ${maxNodePatterns} of each are allowed (use a variable-length relationship instead of a long chain)`,
      { maxNodePatterns },
    );
  }
  const conjuncts = splitConjuncts(query.where);
  const bound = new Set([...nodes.keys(), ...relationships.keys()]);
  const aliases = new Set(query.returns.map((item) => item.alias));
  const exprs = [
    ...conjuncts,
    ...query.returns.map((item) => item.expr),
    // ORDER BY may name a RETURN alias.
    ...query.orderBy
      .map((item) => item.expr)
      .filter((expr) => !(expr.kind === 'variable' && aliases.has(expr.name))),
  ];
  for (const expr of exprs) {
    for (const name of variablesOf(expr)) {
      if (!bound.has(name)) {
        const named = [...bound].filter((v) => !v.startsWith('#'));
        throw invalidQuery(
          'variable',
          `Unknown variable "${name.slice(0, 100)}"; the pattern binds ${named.length > 0 ? named.join(', ') : 'no variables'}`,
          { variable: name.slice(0, 100) },
        );
      }
    }
  }
  // Values must resolve now (a missing $parameter is reported before anything runs).
  for (const expr of [...conjuncts, ...[...conditions.values()].flat()])
    resolveParams(expr, params);

  const analysis = { nodes, hops, relationships, conjuncts };
  refuseCartesianProduct(analysis);
  return analysis;
};

const resolveParams = (expr: Expr, params: QueryParams): void => {
  if (expr.kind === 'param' || expr.kind === 'list') {
    constantValue(expr, params);
    return;
  }
  if (expr.kind === 'compare' || expr.kind === 'and' || expr.kind === 'or') {
    resolveParams(expr.left, params);
    resolveParams(expr.right, params);
  } else if (expr.kind === 'not' || expr.kind === 'isNull') {
    resolveParams(expr.operand, params);
  }
};

/** The node keys an expression touches (relationship variables count as their endpoints). */
const nodeKeysOf = (expr: Expr, analysis: Analysis): string[] =>
  variablesOf(expr).flatMap((name) => {
    const hop = analysis.relationships.get(name);
    if (hop === undefined) return [name];
    const binding = analysis.hops[hop];
    return binding ? [binding.left] : [];
  });

const refuseCartesianProduct = (analysis: Analysis): void => {
  const parent = new Map<string, string>([...analysis.nodes.keys()].map((key) => [key, key]));
  const find = (key: string): string => {
    let root = key;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    parent.set(key, root);
    return root;
  };
  const union = (a: string, b: string) => parent.set(find(a), find(b));
  for (const hop of analysis.hops) union(hop.left, hop.right);
  // A top-level WHERE condition over two parts joins them (e.g. a.product = b.product).
  // Only a comparison joins for every row; an OR or NOT of one may leave a part unconstrained.
  for (const conjunct of analysis.conjuncts) {
    if (conjunct.kind !== 'compare') continue;
    const [first, ...rest] = nodeKeysOf(conjunct, analysis);
    if (first !== undefined) for (const other of rest) union(first, other);
  }
  const roots = new Set([...analysis.nodes.keys()].map(find));
  if (roots.size > 1) {
    const parts = [...roots].map((root) =>
      [...analysis.nodes.keys()]
        .filter((key) => find(key) === root)
        .map((key) => (key.startsWith('#') ? '()' : key))
        .join(', '),
    );
    throw invalidQuery(
      'cartesianProduct',
      `The patterns are not connected (${parts.map((p) => `{${p}}`).join(' × ')}): that is a cartesian product. Share a variable between the patterns or join them in WHERE (e.g. a.product = b.product)`,
      { parts },
    );
  }
};
