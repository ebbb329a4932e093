import type {
  CompareOp,
  Expr,
  NodePattern,
  PatternChain,
  Query,
  RelationshipPattern,
  ReturnItem,
  SortItem,
} from './ast.js';
import { GRAPH_QUERY_BOUNDS } from './bounds.js';
import { invalidQuery } from './errors.js';
import { tokenize, type Token } from './lexer.js';

const WRITE_KEYWORDS = new Set(['CREATE', 'MERGE', 'DELETE', 'DETACH', 'SET', 'REMOVE', 'DROP']);
const UNSUPPORTED_CLAUSES = new Set([
  'CALL',
  'LOAD',
  'UNION',
  'OPTIONAL',
  'UNWIND',
  'FOREACH',
  'WITH',
  'USE',
  'SHOW',
  'EXPLAIN',
  'PROFILE',
]);
const COMPARISONS: ReadonlySet<string> = new Set(['=', '<>', '<', '<=', '>', '>=']);
const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '^', '+=']);
const FUNCTIONS = ['count'];

const describe = (token: Token): string => {
  switch (token.kind) {
    case 'end':
      return 'the end of the query';
    case 'word':
      return token.quoted ? `\`${token.text}\`` : `"${token.text}"`;
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${token.text}`;
    case 'param':
      return `$${token.name}`;
    case 'punct':
      return `"${token.text}"`;
  }
};

const writeError = (keyword: string, at: number) =>
  invalidQuery(
    'readOnly',
    `query_graph is read-only: ${keyword} is a write clause and is not allowed (at offset ${at})`,
    { keyword },
  );

const clauseError = (keyword: string, at: number) =>
  invalidQuery(
    'clause',
    `${keyword} is not supported (at offset ${at}); the subset is MATCH ... [WHERE ...] RETURN [DISTINCT] ... [ORDER BY ...] [SKIP n] [LIMIT n]`,
    { keyword },
  );

/**
 * Write keywords are refused wherever they stand (not only where a clause would start), so a
 * query that smuggles one anywhere gets the read-only answer rather than a syntax error.
 */
const refuseForbiddenWords = (tokens: readonly Token[]): void => {
  tokens.forEach((token, index) => {
    if (token.kind !== 'word' || token.quoted) return;
    const before = tokens[index - 1];
    if (before?.kind === 'punct' && (before.text === '.' || before.text === ':')) return;
    const upper = token.text.toUpperCase();
    if (WRITE_KEYWORDS.has(upper)) throw writeError(upper, token.at);
    if (UNSUPPORTED_CLAUSES.has(upper) && upper !== 'WITH' && upper !== 'USE') {
      throw clauseError(upper, token.at);
    }
  });
};

export const parseQuery = (source: string): Query => {
  const tokens = tokenize(source);
  refuseForbiddenWords(tokens);
  return new Parser(source, tokens).query();
};

const MAX_NESTING = 32;

class Parser {
  #pos = 0;
  #depth = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  query(): Query {
    const patterns: PatternChain[] = [];
    const wheres: Expr[] = [];
    if (!this.isKeyword('MATCH')) this.unexpected('MATCH');
    while (this.acceptKeyword('MATCH')) {
      patterns.push(this.pattern());
      while (this.acceptPunct(',')) patterns.push(this.pattern());
      if (this.acceptKeyword('WHERE')) wheres.push(this.expression());
    }
    if (!this.acceptKeyword('RETURN')) this.unexpected('WHERE, MATCH or RETURN');
    const distinct = this.acceptKeyword('DISTINCT');
    const returns = [this.returnItem()];
    while (this.acceptPunct(',')) returns.push(this.returnItem());
    const orderBy: SortItem[] = [];
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY');
      orderBy.push(this.sortItem());
      while (this.acceptPunct(',')) orderBy.push(this.sortItem());
    }
    const skip = this.acceptKeyword('SKIP') ? this.countValue('SKIP') : undefined;
    const limit = this.acceptKeyword('LIMIT') ? this.countValue('LIMIT') : undefined;
    const last = this.peek();
    if (last.kind !== 'end') {
      if (last.kind === 'punct' && last.text === ';') {
        throw invalidQuery(
          'syntax',
          `Only one statement is allowed; remove ";" at offset ${last.at}`,
        );
      }
      this.unexpected('ORDER BY, SKIP, LIMIT or the end of the query');
    }
    const where = wheres.reduce<Expr | undefined>(
      (all, next) => (all ? { kind: 'and', left: all, right: next, at: next.at } : next),
      undefined,
    );
    return { patterns, where, distinct, returns, orderBy, skip, limit };
  }

  // ---- patterns -------------------------------------------------------------------------

  private pattern(): PatternChain {
    const first = this.peek();
    const second = this.tokens[this.#pos + 1];
    if (first.kind === 'word' && second?.kind === 'punct' && second.text === '=') {
      throw invalidQuery(
        'syntax',
        `Path variables (${first.text} = ...) are not supported (at offset ${first.at}); return the nodes instead`,
      );
    }
    const nodes = [this.node()];
    const relationships: RelationshipPattern[] = [];
    while (this.isPunct('-') || this.isPunct('<')) {
      relationships.push(this.relationship());
      nodes.push(this.node());
    }
    return { nodes, relationships, at: first.at };
  }

  private node(): NodePattern {
    const open = this.expectPunct('(');
    const variable = this.optionalName();
    const labels: string[] = [];
    while (this.acceptPunct(':')) labels.push(this.name('a label'));
    const properties = this.isPunct('{') ? this.propertyMap() : [];
    this.expectPunct(')');
    return { variable, labels, properties, at: open.at };
  }

  private propertyMap(): { key: string; value: Expr }[] {
    this.expectPunct('{');
    const properties: { key: string; value: Expr }[] = [];
    if (!this.isPunct('}')) {
      do {
        const key = this.name('a property name');
        this.expectPunct(':');
        properties.push({ key, value: this.atom() });
      } while (this.acceptPunct(','));
    }
    this.expectPunct('}');
    return properties;
  }

  private relationship(): RelationshipPattern {
    const start = this.peek();
    const leftArrow = this.acceptPunct('<');
    this.expectPunct('-');
    let variable: string | undefined;
    const types: string[] = [];
    let range: { min: number; max: number } | undefined;
    if (this.acceptPunct('[')) {
      variable = this.optionalName();
      if (this.acceptPunct(':')) {
        types.push(this.name('a relationship type'));
        while (this.acceptPunct('|')) {
          this.acceptPunct(':');
          types.push(this.name('a relationship type'));
        }
      }
      if (this.isPunct('*')) range = this.hopRange();
      if (this.isPunct('{')) {
        throw invalidQuery(
          'syntax',
          `Relationship properties are not supported (at offset ${this.peek().at})`,
        );
      }
      this.expectPunct(']');
    }
    this.expectPunct('-');
    const rightArrow = this.acceptPunct('>');
    if (leftArrow && rightArrow) {
      throw invalidQuery(
        'syntax',
        `A relationship points one way or none, not both (<-...-> at offset ${start.at})`,
      );
    }
    return {
      variable,
      types,
      direction: rightArrow ? 'out' : leftArrow ? 'in' : 'both',
      minHops: range?.min ?? 1,
      maxHops: range?.max ?? 1,
      variableLength: range !== undefined,
      at: start.at,
    };
  }

  private hopRange(): { min: number; max: number } {
    const star = this.expectPunct('*');
    const { maxHops } = GRAPH_QUERY_BOUNDS;
    const readInt = (): number | undefined => {
      const token = this.peek();
      if (token.kind !== 'number') return undefined;
      if (!Number.isInteger(token.value)) {
        throw invalidQuery('syntax', `Hop counts are whole numbers (at offset ${token.at})`);
      }
      this.#pos += 1;
      return token.value;
    };
    const min = readInt();
    const hasDots = this.acceptPunct('..');
    const max = hasDots ? readInt() : min;
    const written = this.source.slice(star.at, this.peek().at).trim();
    if (max === undefined) {
      throw invalidQuery(
        'depth',
        `Variable-length relationships need an upper bound of at most ${maxHops} hops (e.g. *1..${maxHops}); "${written}" has no upper bound (at offset ${star.at})`,
        { maxHops, written },
      );
    }
    if (max > maxHops) {
      throw invalidQuery(
        'depth',
        `Variable-length relationships may span at most ${maxHops} hops; "${written}" asks for ${max} (at offset ${star.at})`,
        { maxHops, requested: max, written },
      );
    }
    const lower = min ?? 1;
    if (lower < 1) {
      throw invalidQuery(
        'depth',
        `Variable-length relationships span 1 to ${maxHops} hops; "${written}" asks for ${lower} (at offset ${star.at})`,
        { maxHops, written },
      );
    }
    if (lower > max) {
      throw invalidQuery('syntax', `"${written}" has its lower bound above its upper bound`);
    }
    return { min: lower, max };
  }

  // ---- RETURN / ORDER BY / SKIP / LIMIT ------------------------------------------------------

  private returnItem(): ReturnItem {
    const start = this.peek();
    if (start.kind === 'punct' && start.text === '*') {
      throw invalidQuery('syntax', 'RETURN * is not supported; name the variables to return');
    }
    const expr = this.expression();
    const end = this.peek();
    const alias = this.acceptKeyword('AS')
      ? this.name('an alias')
      : this.source.slice(start.at, end.at).trim();
    return { expr, alias };
  }

  private sortItem(): SortItem {
    const expr = this.expression();
    if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) {
      return { expr, descending: true };
    }
    if (!this.acceptKeyword('ASC')) this.acceptKeyword('ASCENDING');
    return { expr, descending: false };
  }

  private countValue(clause: string): Expr {
    const token = this.peek();
    if (token.kind === 'number' || token.kind === 'param') return this.atom();
    return this.unexpected(`a number or $parameter after ${clause}`);
  }

  // ---- expressions ---------------------------------------------------------------------------

  private expression(): Expr {
    let left = this.conjunction();
    while (this.isKeyword('OR') || this.isKeyword('XOR')) {
      const at = this.peek().at;
      if (this.acceptKeyword('XOR')) {
        throw invalidQuery('operator', `XOR is not supported (at offset ${at}); use AND/OR/NOT`);
      }
      this.#pos += 1;
      left = { kind: 'or', left, right: this.conjunction(), at };
    }
    return left;
  }

  private conjunction(): Expr {
    let left = this.negation();
    while (this.isKeyword('AND')) {
      const at = this.next().at;
      left = { kind: 'and', left, right: this.negation(), at };
    }
    return left;
  }

  private negation(): Expr {
    if (this.isKeyword('NOT')) {
      const at = this.next().at;
      return { kind: 'not', operand: this.negation(), at };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.postfix();
    const token = this.peek();
    if (token.kind === 'punct' && COMPARISONS.has(token.text)) {
      this.#pos += 1;
      const right = this.postfix();
      this.refuseArithmetic();
      return { kind: 'compare', op: token.text as CompareOp, left, right, at: token.at };
    }
    if (token.kind === 'punct' && (token.text === '!=' || token.text === '=~')) {
      throw invalidQuery(
        'operator',
        `Operator ${token.text} is not supported (at offset ${token.at}); comparisons are =, <>, <, <=, >, >=, STARTS WITH, ENDS WITH, CONTAINS, IN, IS [NOT] NULL`,
        { operator: token.text },
      );
    }
    this.refuseArithmetic();
    return left;
  }

  private refuseArithmetic(): void {
    const token = this.peek();
    if (token.kind === 'punct' && ARITHMETIC.has(token.text)) {
      throw invalidQuery(
        'operator',
        `Arithmetic (${token.text}) is not supported (at offset ${token.at}); compare properties with values or $parameters`,
        { operator: token.text },
      );
    }
  }

  private postfix(): Expr {
    const operand = this.atom();
    const token = this.peek();
    if (this.acceptKeyword('IS')) {
      const negated = this.acceptKeyword('NOT');
      this.expectKeyword('NULL');
      return { kind: 'isNull', operand, negated, at: token.at };
    }
    const twoWord = (first: string, op: CompareOp): Expr | undefined => {
      if (!this.acceptKeyword(first)) return undefined;
      this.expectKeyword('WITH');
      return { kind: 'compare', op, left: operand, right: this.atom(), at: token.at };
    };
    const starts = twoWord('STARTS', 'STARTS WITH') ?? twoWord('ENDS', 'ENDS WITH');
    if (starts) return starts;
    if (this.acceptKeyword('CONTAINS')) {
      return { kind: 'compare', op: 'CONTAINS', left: operand, right: this.atom(), at: token.at };
    }
    if (this.acceptKeyword('IN')) {
      return { kind: 'compare', op: 'IN', left: operand, right: this.atom(), at: token.at };
    }
    return operand;
  }

  private atom(): Expr {
    this.#depth += 1;
    try {
      return this.atomAt();
    } finally {
      this.#depth -= 1;
    }
  }

  private atomAt(): Expr {
    // Nesting is bounded so a hostile query cannot exhaust the stack.
    if (this.#depth > MAX_NESTING) {
      throw invalidQuery(
        'syntax',
        `Expressions nest at most ${MAX_NESTING} levels deep (at offset ${this.peek().at})`,
      );
    }
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { kind: 'literal', value: token.value, at: token.at };
      case 'string':
        return { kind: 'literal', value: token.value, at: token.at };
      case 'param':
        return { kind: 'param', name: token.name, at: token.at };
      case 'punct':
        return this.punctAtom(token);
      case 'word':
        return this.wordAtom(token);
      case 'end':
        this.#pos -= 1;
        return this.unexpected('a value, a variable or a property');
    }
  }

  private punctAtom(token: Token & { kind: 'punct' }): Expr {
    if (token.text === '-' && this.peek().kind === 'number') {
      const number = this.next() as Token & { kind: 'number' };
      return { kind: 'literal', value: -number.value, at: token.at };
    }
    if (token.text === '(') {
      const inner = this.expression();
      this.expectPunct(')');
      return inner;
    }
    if (token.text === '[') {
      const items: Expr[] = [];
      if (!this.isPunct(']')) {
        do items.push(this.atom());
        while (this.acceptPunct(','));
      }
      this.expectPunct(']');
      return { kind: 'list', items, at: token.at };
    }
    this.#pos -= 1;
    return this.unexpected('a value, a variable or a property');
  }

  private wordAtom(token: Token & { kind: 'word' }): Expr {
    const upper = token.quoted ? '' : token.text.toUpperCase();
    if (upper === 'TRUE' || upper === 'FALSE') {
      return { kind: 'literal', value: upper === 'TRUE', at: token.at };
    }
    if (upper === 'NULL') return { kind: 'literal', value: null, at: token.at };
    if (this.isPunct('(')) return this.call(token);
    if (this.acceptPunct('.')) {
      const key = this.name('a property name');
      if (this.isPunct('.')) {
        throw invalidQuery(
          'property',
          `Nested properties are not supported (at offset ${this.peek().at}); attributes are read as n.name`,
        );
      }
      return { kind: 'property', variable: token.text, key, at: token.at };
    }
    if (!token.quoted && RESERVED_EXPRESSION_WORDS.has(upper)) {
      this.#pos -= 1;
      return this.unexpected('a value, a variable or a property');
    }
    return { kind: 'variable', name: token.text, at: token.at };
  }

  private call(token: Token & { kind: 'word' }): Expr {
    const name = token.text.toLowerCase();
    if (token.quoted || !FUNCTIONS.includes(name)) {
      throw invalidQuery(
        'function',
        `Unknown function ${token.text}() (at offset ${token.at}); the functions allowed are ${FUNCTIONS.map((f) => `${f}()`).join(', ')}`,
        { function: token.text, allowed: FUNCTIONS },
      );
    }
    this.expectPunct('(');
    if (this.acceptPunct('*')) {
      this.expectPunct(')');
      return { kind: 'count', argument: undefined, distinct: false, at: token.at };
    }
    const distinct = this.acceptKeyword('DISTINCT');
    const argument = this.expression();
    this.expectPunct(')');
    return { kind: 'count', argument, distinct, at: token.at };
  }

  // ---- token helpers -----------------------------------------------------------------------

  private peek(): Token {
    return this.tokens[this.#pos] ?? { kind: 'end', at: this.source.length };
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.#pos += 1;
    return token;
  }

  private isKeyword(keyword: string): boolean {
    const token = this.peek();
    return token.kind === 'word' && !token.quoted && token.text.toUpperCase() === keyword;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(keyword)) return false;
    this.#pos += 1;
    return true;
  }

  private expectKeyword(keyword: string): void {
    if (!this.acceptKeyword(keyword)) this.unexpected(keyword);
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.kind === 'punct' && token.text === text;
  }

  private acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.#pos += 1;
    return true;
  }

  private expectPunct(text: string): Token {
    const token = this.peek();
    if (!this.acceptPunct(text)) this.unexpected(`"${text}"`);
    return token;
  }

  private optionalName(): string | undefined {
    const token = this.peek();
    if (token.kind !== 'word') return undefined;
    this.#pos += 1;
    return token.text;
  }

  private name(what: string): string {
    const token = this.peek();
    if (token.kind !== 'word') return this.unexpected(what);
    this.#pos += 1;
    return token.text;
  }

  private unexpected(expected: string): never {
    const token = this.peek();
    if (token.kind === 'word' && !token.quoted) {
      const upper = token.text.toUpperCase();
      if (WRITE_KEYWORDS.has(upper)) throw writeError(upper, token.at);
      if (UNSUPPORTED_CLAUSES.has(upper)) throw clauseError(upper, token.at);
    }
    throw invalidQuery(
      'syntax',
      `Expected ${expected} but found ${describe(token)} at offset ${token.at}`,
      { offset: token.at },
    );
  }
}

const RESERVED_EXPRESSION_WORDS = new Set([
  'MATCH',
  'WHERE',
  'RETURN',
  'ORDER',
  'BY',
  'SKIP',
  'LIMIT',
  'AND',
  'OR',
  'NOT',
  'IS',
  'IN',
  'AS',
  'DISTINCT',
  'STARTS',
  'ENDS',
  'CONTAINS',
  'ASC',
  'DESC',
]);
