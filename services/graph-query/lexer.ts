import { invalidQuery } from './errors.js';
import { isStorableText } from './values.js';

/**
 * Tokens of the openCypher subset. Words keep their spelling (keywords are matched
 * case-insensitively by the parser); backtick-quoted names are `quoted` so they can never be
 * taken for a keyword.
 */
export type Token =
  | { readonly kind: 'word'; readonly text: string; readonly quoted: boolean; readonly at: number }
  | { readonly kind: 'string'; readonly value: string; readonly at: number }
  | { readonly kind: 'number'; readonly value: number; readonly text: string; readonly at: number }
  | { readonly kind: 'param'; readonly name: string; readonly at: number }
  | { readonly kind: 'punct'; readonly text: string; readonly at: number }
  | { readonly kind: 'end'; readonly at: number };

export const MAX_QUERY_LENGTH = 10_000;

const PUNCTUATION = ['<>', '<=', '>=', '..', '=~', '!=', '+=', '(', ')', '[', ']', '{', '}'];
const SINGLE = new Set([
  ...[':', ',', '.', '|', '*', '-', '<', '>', '=', '+', '/', '%', '^', ';', '!'],
]);
const WORD_START = /[\p{L}_]/u;
const WORD_PART = /[\p{L}\p{N}_]/u;
const DIGIT = /[0-9]/;

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
};

const syntax = (message: string, at: number) =>
  invalidQuery('syntax', `${message} at offset ${at}`, { offset: at });

export const tokenize = (source: string): Token[] => {
  if (source.length > MAX_QUERY_LENGTH) {
    throw invalidQuery(
      'syntax',
      `The query is ${source.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`,
      { maxLength: MAX_QUERY_LENGTH },
    );
  }
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source.charAt(i);
    if (/\s/u.test(char)) {
      i += 1;
    } else if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end + 1;
    } else if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) throw syntax('Unterminated /* comment', i);
      i = end + 2;
    } else if (char === "'" || char === '"') {
      const [value, next] = readString(source, i, char);
      tokens.push({ kind: 'string', value, at: i });
      i = next;
    } else if (char === '`') {
      const end = source.indexOf('`', i + 1);
      if (end === -1) throw syntax('Unterminated `quoted name`', i);
      const text = source.slice(i + 1, end);
      if (text.length === 0) throw syntax('Empty `quoted name`', i);
      tokens.push({ kind: 'word', text, quoted: true, at: i });
      i = end + 1;
    } else if (char === '$') {
      let end = i + 1;
      while (end < source.length && WORD_PART.test(source.charAt(end))) end += 1;
      if (end === i + 1) throw syntax('Expected a parameter name after $', i);
      tokens.push({ kind: 'param', name: source.slice(i + 1, end), at: i });
      i = end;
    } else if (DIGIT.test(char)) {
      const match = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i, i + 64));
      const text = match?.[0] ?? char;
      if (i + text.length < source.length && WORD_PART.test(source.charAt(i + text.length))) {
        throw syntax(`Malformed number "${source.slice(i, i + text.length + 1)}"`, i);
      }
      const value = Number(text);
      if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
        throw syntax(`Number ${text} is out of range`, i);
      }
      tokens.push({ kind: 'number', value, text, at: i });
      i += text.length;
    } else if (WORD_START.test(char)) {
      let end = i + 1;
      while (end < source.length && WORD_PART.test(source.charAt(end))) end += 1;
      tokens.push({ kind: 'word', text: source.slice(i, end), quoted: false, at: i });
      i = end;
    } else {
      const multi = PUNCTUATION.find((text) => source.startsWith(text, i));
      if (multi !== undefined) {
        tokens.push({ kind: 'punct', text: multi, at: i });
        i += multi.length;
      } else if (SINGLE.has(char)) {
        tokens.push({ kind: 'punct', text: char, at: i });
        i += 1;
      } else {
        throw syntax(`Unexpected character ${JSON.stringify(char)}`, i);
      }
    }
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
};

const readString = (source: string, start: number, quote: string): [string, number] => {
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const char = source.charAt(i);
    if (char === quote) {
      if (!isStorableText(value)) {
        throw syntax('A string holds a NUL character or an unpaired surrogate', start);
      }
      return [value, i + 1];
    }
    if (char !== '\\') {
      value += char;
      i += 1;
      continue;
    }
    const next = source.charAt(i + 1);
    const simple = ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      throw syntax(`Invalid escape "\\${next}" in a string`, i);
    }
  }
  throw syntax('Unterminated string', start);
};
