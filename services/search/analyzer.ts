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

// Word characters of most scripts; everything else separates tokens.
const TOKEN = /[\p{L}\p{N}]+/gu;
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

/**
 * An analyzer with its own cache of word → term: a corpus repeats a small vocabulary many
 * times, and Porter stemming is regex work. The cache is dropped when full.
 */
export const createAnalyzer = (): Analyzer => {
  let cache = new Map<string, string[]>();
  const wordTerms = (raw: string): string[] => {
    const cached = cache.get(raw);
    if (cached) return cached;
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
    if (cache.size >= CACHE_LIMIT) cache = new Map();
    cache.set(raw, terms);
    return terms;
  };
  return (text) => {
    const terms: string[] = [];
    for (const match of text.matchAll(TOKEN)) terms.push(...wordTerms(match[0]));
    return terms;
  };
};

/** The index terms of a text, in order (repeats kept: term frequency counts them); uncached. */
export const analyze: Analyzer = (text) => {
  const terms: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const raw = match[0];
    const parts = raw.split(CAMEL_BOUNDARY);
    if (parts.length > 1) {
      const whole = normalizeTerm(raw.toLowerCase());
      if (whole !== undefined) terms.push(whole);
    }
    for (const part of parts) {
      const term = normalizeTerm(part.toLowerCase());
      if (term !== undefined) terms.push(term);
    }
  }
  return terms;
};
