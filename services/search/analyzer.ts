import { stemmer } from 'stemmer';

/**
 * The text analyzer shared by indexing and querying: lower-case word tokens, identifiers split
 * into their parts (code samples and API names), stop words dropped, Porter stems. Indexing and
 * querying must agree exactly, so both call `analyze`.
 */

/**
 * Lucene's English stop set plus question and filler words that carry no topic ("what",
 * "how", "which"...): queries are often phrased as questions. Negations stay out of the set,
 * since they can matter for claims.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
  'of',
  'from',
  'has',
  'have',
  'had',
  'been',
  'were',
  'which',
  'what',
  'when',
  'where',
  'who',
  'whom',
  'why',
  'how',
  'do',
  'does',
  'did',
  'its',
  'can',
  'could',
  'would',
  'should',
  'may',
  'might',
  'must',
  'shall',
  'also',
  'any',
  'some',
  'than',
  'those',
  'we',
  'our',
  'you',
  'your',
  'i',
  'me',
  'my',
  'he',
  'she',
  'his',
  'her',
  'them',
  'him',
  'about',
  'there',
  'here',
  'so',
  'being',
  'both',
  'each',
  'other',
  'very',
]);

// Word characters of most scripts; everything else separates tokens (what `eachWord` finds).
export const TOKEN = /[\p{L}\p{N}]+/gu;
// `createEventStore`, `HTTPServer` → create Event Store / HTTP Server (only a lower→upper turn
// followed by lower case splits, so "mRNA" and "IL6" stay whole).
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu}\p{Ll})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

const MAX_TOKEN_LENGTH = 40;

/** Maps one lower-case word to its index term, or undefined for a stop word. */
export const normalizeTerm = (word: string): string | undefined => {
  if (word.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(word)) return undefined;
  // Porter only knows English letters; numbers and other scripts pass through unchanged.
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
};

export type Analyzer = (text: string) => string[];

/** Words seen by one analyzer are remembered up to this many (stemming dominates indexing). */
const CACHE_LIMIT = 200_000;

// ASCII letters and digits: the word characters of most text, decided by a table.
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c += 1) {
  ASCII_WORD[c] = /[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0;
}
const WORD_CHARACTER = /^[\p{L}\p{N}]$/u;
const otherWordCharacters = new Map<number, boolean>();
/** Whether a code point beyond ASCII is a letter or digit (what TOKEN matches), memoised. */
const isOtherWordCharacter = (codePoint: number): boolean => {
  let verdict = otherWordCharacters.get(codePoint);
  if (verdict === undefined) {
    verdict = WORD_CHARACTER.test(String.fromCodePoint(codePoint));
    otherWordCharacters.set(codePoint, verdict);
  }
  return verdict;
};

/**
 * Calls `visit` with each word of `text`: the maximal runs of letters and digits of any script
 * that TOKEN matches, found by a table for ASCII and a memoised test beyond it (the regular
 * expression's iterator was a third of indexing).
 */
const eachWord = (text: string, visit: (word: string) => void): void => {
  const length = text.length;
  let start = -1;
  for (let i = 0; i < length;) {
    const unit = text.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (unit < 128) word = ASCII_WORD[unit] === 1;
    else {
      const codePoint = text.codePointAt(i) as number;
      width = codePoint > 0xffff ? 2 : 1;
      word = isOtherWordCharacter(codePoint);
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      visit(text.slice(start, i));
      start = -1;
    }
    i += width;
  }
  if (start >= 0) visit(text.slice(start));
};

/** The words of a text, in order (what the analyzers split into terms). */
export const words = (text: string): string[] => {
  const out: string[] = [];
  eachWord(text, (word) => {
    out.push(word);
  });
  return out;
};

/** The index terms of one word: the whole identifier (when it splits) and its parts. */
const termsOfWord = (raw: string): string[] => {
  const terms: string[] = [];
  const parts = raw.split(CAMEL_BOUNDARY);
  if (parts.length > 1) {
    // Keep the identifier whole as well, so an exact name still matches best.
    const whole = normalizeTerm(raw.toLowerCase());
    if (whole !== undefined) terms.push(whole);
  }
  for (const part of parts) {
    const term = normalizeTerm(part.toLowerCase());
    if (term !== undefined) terms.push(term);
  }
  return terms;
};

/**
 * An analyzer with its own cache of word → terms: a corpus repeats a small vocabulary many
 * times, and Porter stemming is regex work. The cache is dropped when full.
 */
export const createAnalyzer = (): Analyzer => {
  let cache = new Map<string, string[]>();
  return (text) => {
    const terms: string[] = [];
    eachWord(text, (word) => {
      let cached = cache.get(word);
      if (cached === undefined) {
        cached = termsOfWord(word);
        if (cache.size >= CACHE_LIMIT) cache = new Map();
        cache.set(word, cached);
      }
      for (const term of cached) terms.push(term);
    });
    return terms;
  };
};

/** The index terms of a text, in order (repeats kept: term frequency counts them); uncached. */
export const analyze: Analyzer = (text) => {
  const terms: string[] = [];
  eachWord(text, (word) => {
    for (const term of termsOfWord(word)) terms.push(term);
  });
  return terms;
};
