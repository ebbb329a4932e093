import { describe, expect, it } from 'vitest';
import { analyze, normalizeTerm, STOP_WORDS } from '../../../services/search/analyzer.js';

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
});
