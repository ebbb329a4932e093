/** The parsed query: the openCypher subset, before any check against the vocabulary. */

export type Scalar = string | number | boolean | null;
export type Value = Scalar | readonly Scalar[];

export type CompareOp =
  '=' | '<>' | '<' | '<=' | '>' | '>=' | 'STARTS WITH' | 'ENDS WITH' | 'CONTAINS' | 'IN';

export type Expr =
  | { readonly kind: 'variable'; readonly name: string; readonly at: number }
  | {
      readonly kind: 'property';
      readonly variable: string;
      readonly key: string;
      readonly at: number;
    }
  | { readonly kind: 'literal'; readonly value: Scalar; readonly at: number }
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly at: number }
  | { readonly kind: 'param'; readonly name: string; readonly at: number }
  | {
      readonly kind: 'compare';
      readonly op: CompareOp;
      readonly left: Expr;
      readonly right: Expr;
      readonly at: number;
    }
  | { readonly kind: 'and' | 'or'; readonly left: Expr; readonly right: Expr; readonly at: number }
  | { readonly kind: 'not'; readonly operand: Expr; readonly at: number }
  | {
      readonly kind: 'isNull';
      readonly operand: Expr;
      readonly negated: boolean;
      readonly at: number;
    }
  | {
      readonly kind: 'count';
      /** `undefined` for `count(*)`. */
      readonly argument: Expr | undefined;
      readonly distinct: boolean;
      readonly at: number;
    };

export interface NodePattern {
  readonly variable: string | undefined;
  readonly labels: readonly string[];
  readonly properties: readonly { readonly key: string; readonly value: Expr }[];
  readonly at: number;
}

export interface RelationshipPattern {
  readonly variable: string | undefined;
  /** Empty: any type of the vocabulary. */
  readonly types: readonly string[];
  readonly direction: 'out' | 'in' | 'both';
  /** Hop counts; a plain relationship is exactly one hop. */
  readonly minHops: number;
  readonly maxHops: number;
  readonly variableLength: boolean;
  readonly at: number;
}

/** `(a)-[r]->(b)<-[s]-(c)`: nodes[i] and nodes[i+1] are joined by relationships[i]. */
export interface PatternChain {
  readonly nodes: readonly NodePattern[];
  readonly relationships: readonly RelationshipPattern[];
  readonly at: number;
}

export interface ReturnItem {
  readonly expr: Expr;
  readonly alias: string;
}

export interface SortItem {
  readonly expr: Expr;
  readonly descending: boolean;
}

export interface Query {
  readonly patterns: readonly PatternChain[];
  readonly where: Expr | undefined;
  readonly distinct: boolean;
  readonly returns: readonly ReturnItem[];
  readonly orderBy: readonly SortItem[];
  readonly skip: Expr | undefined;
  readonly limit: Expr | undefined;
}
