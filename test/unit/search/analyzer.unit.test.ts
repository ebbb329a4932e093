import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  createAnalyzer,
  normalizeTerm,
  STOP_WORDS,
  TOKEN,
  words,
} from '../../../services/search/analyzer.js';
import { PROPERTY_TIMEOUT_MS } from '../../support/property.js';

describe('analyze', () => {
  it('given prose, when analyzed, then stop words are dropped and words are Porter-stemmed', () => {
    expect(analyze('The projections are running on the event stores')).toEqual([
      'project',
      'run',
      'event',
      'store',
    ]);
  });

  it('given question words, when analyzed, then they carry no term', () => {
    expect(analyze('What is how which')).toEqual([]);
  });

  it('given a negation, when analyzed, then it is kept (claims turn on it)', () => {
    expect(analyze('not effective')).toEqual(['not', 'effect']);
  });

  it('given a camelCase identifier, when analyzed, then the whole name and its parts are terms', () => {
    expect(analyze('createEventStore()')).toEqual(['createeventstor', 'creat', 'event', 'store']);
  });

  it('given acronyms and numbers, when analyzed, then they are not split or stemmed', () => {
    expect(analyze('mRNA IL6 2026 HTTPServer')).toEqual([
      'mrna',
      'il6',
      '2026',
      'httpserver',
      'http',
      'server',
    ]);
  });

  it('given punctuation and other scripts, when analyzed, then it separates tokens and keeps letters', () => {
    expect(analyze('event-sourced, déjà vu')).toEqual(['event', 'sourc', 'déjà', 'vu']);
  });

  it('given a very long token, when normalized, then it is dropped', () => {
    expect(normalizeTerm('x'.repeat(41))).toBeUndefined();
    expect(STOP_WORDS.has('the')).toBe(true);
  });

  it(
    'given any text, when split into words, then the words are what the Unicode letter-and-digit pattern matches',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ unit: 'grapheme' }),
            fc.string({ unit: 'binary' }),
            fc.constantFrom('emoji 😀 𝒳yz déjà-vu ﬁx 中文字 ①② a\u0301b', 'x\ud800y'),
          ),
          (text) => {
            expect(words(text)).toEqual([...text.matchAll(TOKEN)].map((match) => match[0]));
          },
        ),
        { numRuns: 300 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('given the caching analyzer, when it analyzes a text twice, then it agrees with the plain one', () => {
    const cached = createAnalyzer();
    const text = 'createEventStore appends events; HTTPServer déjà 2026 the projections';
    expect(cached(text)).toEqual(analyze(text));
    expect(cached(text)).toEqual(analyze(text));
  });
});
