// A static reading of JavaScript/TypeScript configuration files: literals, objects, arrays and
// top-level constants only. The code is never run; whatever is computed reads as `Computed`.

/** A value the scanner could not read without running the code (an env variable, a call). */
export class Computed {
  constructor(readonly text: string) {}
}

export type StaticValue =
  | string
  | number
  | boolean
  | null
  | Computed
  | readonly StaticValue[]
  | { readonly [key: string]: StaticValue };

interface Token {
  readonly kind: 'string' | 'template' | 'ident' | 'number' | 'punct' | 'regex';
  readonly text: string;
  /** The literal's value (strings, templates without `${…}`). */
  readonly value?: string;
}

const PUNCT = ['...', '??', '||', '&&', '=>', '===', '!==', '==', '!=', '?.'];
const REGEX_AFTER = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', 'return']);

const readQuoted = (source: string, start: number): { value: string; end: number } => {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] === '\\') {
      const next = source[i + 1] ?? '';
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      i += 2;
    } else value += source[(i += 1) - 1] ?? '';
  }
  return { value, end: i + 1 };
};

/** A template literal: its text, and whether it interpolates (then it is computed). */
const readTemplate = (source: string, start: number): { value?: string; end: number } => {
  let i = start + 1;
  let value = '';
  let computed = false;
  while (i < source.length && source[i] !== '`') {
    if (source[i] === '\\') {
      value += source[i + 1] ?? '';
      i += 2;
    } else if (source[i] === '$' && source[i + 1] === '{') {
      computed = true;
      let depth = 1;
      i += 2;
      while (i < source.length && depth > 0) {
        if (source[i] === '{') depth += 1;
        else if (source[i] === '}') depth -= 1;
        else if (source[i] === '`') i = readTemplate(source, i).end - 1;
        else if (source[i] === '"' || source[i] === "'") i = readQuoted(source, i).end - 1;
        i += 1;
      }
    } else value += source[(i += 1) - 1] ?? '';
  }
  return computed ? { end: i + 1 } : { value, end: i + 1 };
};

export const tokenize = (source: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    const rest = source.slice(i, i + 3);
    if (/\s/.test(c)) i += 1;
    else if (rest.startsWith('//')) {
      const newline = source.indexOf('\n', i);
      i = newline === -1 ? source.length : newline;
    } else if (rest.startsWith('/*')) {
      const close = source.indexOf('*/', i + 2);
      i = close === -1 ? source.length : close + 2;
    } else if (c === '"' || c === "'") {
      const { value, end } = readQuoted(source, i);
      tokens.push({ kind: 'string', text: source.slice(i, end), value });
      i = end;
    } else if (c === '`') {
      const { value, end } = readTemplate(source, i);
      tokens.push({
        kind: 'template',
        text: source.slice(i, end),
        ...(value === undefined ? {} : { value }),
      });
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      const match = /^[\w$]+/.exec(source.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'ident', text: match });
      i += match.length;
    } else if (/\d/.test(c)) {
      const match = /^[\d.xXa-fA-F_eE]+/.exec(source.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'number', text: match, value: match });
      i += match.length;
    } else if (c === '/' && REGEX_AFTER.has(tokens.at(-1)?.text ?? '(')) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && (source[j] !== '/' || inClass) && source[j] !== '\n') {
        if (source[j] === '\\') j += 1;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j += 1;
      }
      const end = /^[a-z]*/.exec(source.slice(j + 1))?.[0].length ?? 0;
      tokens.push({ kind: 'regex', text: source.slice(i, j + 1 + end) });
      i = j + 1 + end;
    } else {
      const op = PUNCT.find((p) => source.startsWith(p, i)) ?? c;
      tokens.push({ kind: 'punct', text: op });
      i += op.length;
    }
  }
  return tokens;
};

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
const END = new Set([',', ')', ']', '}', ';']);

/** Reads values from tokens; top-level constants resolve identifiers. */
class Reader {
  readonly constants = new Map<string, StaticValue>();
  constructor(readonly tokens: readonly Token[]) {}

  text(i: number): string {
    return this.tokens[i]?.text ?? '';
  }

  /** The index after the expression starting at i (at the `,` or closer that ends it). */
  skip(i: number): number {
    let depth = 0;
    let j = i;
    while (j < this.tokens.length) {
      const t = this.tokens[j];
      if (t?.kind === 'punct') {
        if (depth === 0 && END.has(t.text)) return j;
        if (OPEN.has(t.text)) depth += 1;
        else if (CLOSE.has(t.text)) depth -= 1;
      }
      j += 1;
    }
    return j;
  }

  /** A value and the index after its whole expression. */
  value(i: number): { value: StaticValue; next: number } {
    const end = this.skip(i);
    const primary = this.primary(i);
    if (primary.next >= end) return { value: primary.value, next: end };
    const following = this.text(primary.next);
    // `{…} satisfies Options`, `'x' as const`: still the literal.
    if (following === 'satisfies' || following === 'as') return { value: primary.value, next: end };
    // `process.env.BASE_URL ?? '/'`: the literal is what the site uses unless told otherwise.
    const last = this.tokens[end - 1];
    const before = this.text(end - 2);
    if (
      (before === '??' || before === '||') &&
      (last?.kind === 'string' || last?.kind === 'template')
    )
      return last.value === undefined ? this.computed(i, end) : { value: last.value, next: end };
    return this.computed(i, end);
  }

  computed(i: number, end: number): { value: StaticValue; next: number } {
    const text = this.tokens
      .slice(i, end)
      .map((t) => t.text)
      .join(' ');
    return { value: new Computed(text.length > 80 ? `${text.slice(0, 77)}...` : text), next: end };
  }

  primary(i: number): { value: StaticValue; next: number } {
    const t = this.tokens[i];
    if (!t) return { value: new Computed(''), next: i };
    if (t.kind === 'string' || (t.kind === 'template' && t.value !== undefined))
      return { value: t.value ?? '', next: i + 1 };
    if (t.kind === 'number') return { value: Number(t.text.replace(/_/g, '')), next: i + 1 };
    if (t.kind === 'ident') {
      if (t.text === 'true' || t.text === 'false') return { value: t.text === 'true', next: i + 1 };
      if (t.text === 'null' || t.text === 'undefined') return { value: null, next: i + 1 };
      if (this.constants.has(t.text) && !['.', '(', '['].includes(this.text(i + 1)))
        return { value: this.constants.get(t.text) ?? null, next: i + 1 };
      return { value: new Computed(t.text), next: i + 1 };
    }
    if (t.text === '{') return this.object(i + 1);
    if (t.text === '[') return this.array(i + 1);
    if (t.text === '(') {
      // `({…})`, as JSDoc-typed configurations write their options.
      const inner = this.value(i + 1);
      if (this.text(inner.next) === ')') return { value: inner.value, next: inner.next + 1 };
    }
    return { value: new Computed(t.text), next: i + 1 };
  }

  object(i: number): { value: StaticValue; next: number } {
    const out: Record<string, StaticValue> = {};
    let j = i;
    while (j < this.tokens.length && this.text(j) !== '}') {
      const key = this.tokens[j];
      const after = this.text(j + 1);
      if (key && key.kind !== 'punct' && after === ':') {
        const { value, next } = this.value(j + 2);
        out[key.value ?? key.text] = value;
        j = next;
      } else if (key?.kind === 'ident' && (after === ',' || after === '}')) {
        out[key.text] = this.constants.get(key.text) ?? new Computed(key.text);
        j += 1;
      } else j = this.skip(j); // spreads, methods, computed keys
      if (this.text(j) === ',') j += 1;
      else if (this.text(j) !== '}') j = this.skip(j + 1);
    }
    return { value: out, next: j + 1 };
  }

  array(i: number): { value: StaticValue; next: number } {
    const out: StaticValue[] = [];
    let j = i;
    while (j < this.tokens.length && this.text(j) !== ']') {
      if (this.text(j) === '...') {
        out.push(new Computed(`...${this.text(j + 1)}`));
        j = this.skip(j);
      } else {
        const { value, next } = this.value(j);
        out.push(value);
        j = next;
      }
      if (this.text(j) === ',') j += 1;
      else if (this.text(j) !== ']') j = this.skip(j + 1);
    }
    return { value: out, next: j + 1 };
  }
}

export const isObject = (value: StaticValue | undefined): value is Record<string, StaticValue> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Computed);

/**
 * Every object literal of the file that is assigned, returned or exported, read statically,
 * with identifiers of top-level `const`s replaced by their values. Never throws.
 */
export const readObjectLiterals = (source: string): Record<string, StaticValue>[] => {
  const reader = new Reader(tokenize(source));
  const objects: Record<string, StaticValue>[] = [];
  const { tokens } = reader;
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t?.kind === 'ident' && ['const', 'let', 'var'].includes(t.text)) {
      const name = tokens[i + 1];
      if (name?.kind === 'ident' && reader.text(i + 2) === '=' && !reader.constants.has(name.text))
        reader.constants.set(name.text, reader.value(i + 3).value);
      else if (name?.kind === 'ident' && reader.text(i + 2) === ':') {
        // `const config: Config = {…}`
        const eq = tokens.findIndex((tok, k) => k > i + 2 && tok.text === '=');
        if (eq !== -1 && eq < i + 12 && !reader.constants.has(name.text))
          reader.constants.set(name.text, reader.value(eq + 1).value);
      }
    }
    const before = reader.text(i - 1);
    if (t?.text === '{' && ['=', 'return', 'default', '(', '=>'].includes(before)) {
      const { value } = reader.object(i + 1);
      if (isObject(value)) objects.push(value);
    }
  }
  return objects;
};
