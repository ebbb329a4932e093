import { describe, expect, it } from 'vitest';
import {
  convexCombination,
  normalizeScores,
  reciprocalRankFusion,
  topK,
} from '../../../services/search/fusion.js';

describe('fusion', () => {
  it('given BM25 scores, when normalised by max, then the floor is the theoretical 0', () => {
    const scores = normalizeScores(
      new Map([
        ['a', 4],
        ['b', 2],
      ]),
      'max',
    );
    expect(scores.get('a')).toBe(1);
    expect(scores.get('b')).toBe(0.5);
  });

  it('given cosines, when min–max normalised, then they span [0, 1]', () => {
    const scores = normalizeScores(
      new Map([
        ['a', 0.9],
        ['b', 0.5],
        ['c', 0.7],
      ]),
      'min-max',
    );
    expect(scores.get('a')).toBe(1);
    expect(scores.get('b')).toBe(0);
    expect(scores.get('c')).toBeCloseTo(0.5, 10);
  });

  it('given scores, when z-score normalised, then they are standard deviations above the list floor', () => {
    // Mean 2, population standard deviation √(2/3): the lowest score maps to 0.
    const scores = normalizeScores(
      new Map([
        ['a', 3],
        ['b', 2],
        ['c', 1],
      ]),
      'z-score',
    );
    const deviation = Math.sqrt(2 / 3);
    expect(scores.get('c')).toBe(0);
    expect(scores.get('b')).toBeCloseTo(1 / deviation, 10);
    expect(scores.get('a')).toBeCloseTo(2 / deviation, 10);
    // A flat list carries no preference: every score is the same.
    const flat = normalizeScores(
      new Map([
        ['x', 5],
        ['y', 5],
      ]),
      'z-score',
    );
    expect([...flat.values()]).toEqual([1, 1]);
  });

  it('given two lists, when combined, then each id gets Σ weight × score and absence counts 0', () => {
    const fused = convexCombination([
      {
        scores: new Map([
          ['a', 1],
          ['b', 0.5],
        ]),
        weight: 0.7,
      },
      {
        scores: new Map([
          ['b', 1],
          ['c', 1],
        ]),
        weight: 0.3,
      },
    ]);
    expect(fused.get('a')).toBeCloseTo(0.7, 10);
    expect(fused.get('b')).toBeCloseTo(0.65, 10);
    expect(fused.get('c')).toBeCloseTo(0.3, 10);
  });

  it('given rankings, when fused by RRF, then a document high in both wins', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
    ]);
    expect(topK(fused, 1)[0]?.[0]).toBe('b');
    expect(fused.get('a')).toBeCloseTo(1 / 61 + 1 / 63, 12);
  });

  it('given ties, when the top is taken, then ids break them for stable output', () => {
    expect(
      topK(
        new Map([
          ['b', 1],
          ['a', 1],
          ['c', 2],
        ]),
        2,
      ),
    ).toEqual([
      ['c', 2],
      ['a', 1],
    ]);
  });
});
