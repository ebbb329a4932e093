import { describe, expect, it } from 'vitest';
import {
  comparePositions,
  decodePosition,
  encodePosition,
  isPosition,
  parsePosition,
} from '../../../services/event-store/position.js';
import type { Position } from '../../../services/event-store/types.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';

const MAX = (1n << 64n) - 1n;
const TWO_53 = 1n << 53n;

/** Values around every place where the hex form grows a digit or a number stops being exact. */
const BOUNDARIES = [
  0n,
  1n,
  9n,
  10n,
  15n,
  16n,
  255n,
  256n,
  (1n << 32n) - 1n,
  1n << 32n,
  TWO_53 - 1n,
  TWO_53,
  TWO_53 + 1n,
  (1n << 63n) - 1n,
  1n << 63n,
  MAX - 1n,
  MAX,
];

const numericOrder = (
  a: { major: bigint; minor: bigint },
  b: { major: bigint; minor: bigint },
): number =>
  a.major !== b.major
    ? a.major < b.major
      ? -1
      : 1
    : a.minor < b.minor
      ? -1
      : a.minor > b.minor
        ? 1
        : 0;

describe('encodePosition / decodePosition', () => {
  it('given zero and the largest 64-bit values, when encoded, then both parts are 16 lowercase hex digits', () => {
    expect(encodePosition(0n, 0n)).toBe('0000000000000000-0000000000000000');
    expect(encodePosition(MAX, MAX)).toBe('ffffffffffffffff-ffffffffffffffff');
    expect(encodePosition(42n, 257n)).toBe('000000000000002a-0000000000000101');
  });

  it('given every boundary value as major and minor, when encoded and decoded, then the same numbers come back exactly', () => {
    for (const major of BOUNDARIES) {
      for (const minor of [0n, 15n, 16n, TWO_53 + 1n, MAX]) {
        const position = encodePosition(major, minor);
        expect(position).toHaveLength(33);
        expect(isPosition(position)).toBe(true);
        expect(decodePosition(position)).toEqual({ major, minor });
      }
    }
  });

  it('given values beyond 2^53 that differ by one, when encoded, then the encodings differ (no float rounding)', () => {
    expect(encodePosition(TWO_53, 0n)).not.toBe(encodePosition(TWO_53 + 1n, 0n));
    expect(encodePosition(0n, TWO_53 + 1n)).toBe('0000000000000000-0020000000000001');
  });

  it.each([
    ['a negative major', -1n, 0n],
    ['a negative minor', 0n, -1n],
    ['a major of 2^64', MAX + 1n, 0n],
    ['a minor of 2^64', 0n, MAX + 1n],
  ])('given %s, when encoded, then InvalidArgument names both parts', (_what, major, minor) => {
    expect(() => encodePosition(major, minor)).toThrow(InvalidArgument);
    expect(() => encodePosition(major, minor)).toThrow(
      `Position parts must be unsigned 64-bit integers (got ${major}, ${minor})`,
    );
  });

  it('given a string that is not a position, when decoded, then it throws InvalidArgument instead of returning numbers', () => {
    expect(() => decodePosition('12-34' as Position)).toThrow(InvalidArgument);
  });
});

describe('position ordering', () => {
  it('given positions around every hex digit boundary and beyond 2^53, when sorted as strings and with comparePositions, then both orders equal the numeric (major, minor) order', () => {
    const pairs = [
      ...BOUNDARIES.map((major) => ({ major, minor: 0n })),
      ...BOUNDARIES.map((minor) => ({ major: 1n, minor })),
      { major: TWO_53 + 1n, minor: MAX },
      { major: TWO_53 + 2n, minor: 0n },
    ];
    const numeric = [...pairs].sort(numericOrder).map((p) => encodePosition(p.major, p.minor));
    // Every pair of neighbours starts in the wrong order.
    const shuffled = [...numeric].reverse();

    expect([...shuffled].sort(comparePositions)).toEqual(numeric);
    expect([...shuffled].sort()).toEqual(numeric);
  });

  it('given a larger minor under a smaller major, when compared, then the major decides', () => {
    const earlier = encodePosition(1n, MAX);
    const later = encodePosition(2n, 0n);

    expect(comparePositions(earlier, later)).toBe(-1);
    expect(comparePositions(later, earlier)).toBe(1);
  });

  it('given adjacent values whose decimal forms sort the other way (9 vs 10, 15 vs 16), when compared, then the numeric order wins', () => {
    expect(comparePositions(encodePosition(9n, 0n), encodePosition(10n, 0n))).toBe(-1);
    expect(comparePositions(encodePosition(0n, 15n), encodePosition(0n, 16n))).toBe(-1);
    expect(comparePositions(encodePosition(TWO_53, 0n), encodePosition(TWO_53 + 1n, 0n))).toBe(-1);
  });

  it('given the same position twice, when compared, then the result is 0', () => {
    expect(comparePositions(encodePosition(7n, 7n), encodePosition(7n, 7n))).toBe(0);
  });
});

describe('parsePosition / isPosition', () => {
  it('given a position as printed by the CLI, when parsed, then it is returned unchanged', () => {
    expect(parsePosition('000000000000002a-0000000000000101')).toBe(
      '000000000000002a-0000000000000101',
    );
  });

  it.each([
    ['empty', ''],
    ['uppercase hex', '000000000000002A-0000000000000101'],
    ['too short', '2a-101'],
    ['17 digits', '0000000000000002a-0000000000000101'],
    ['no dash', '000000000000002a0000000000000101'],
    ['a colon', '000000000000002a:0000000000000101'],
    ['a trailing newline', '000000000000002a-0000000000000101\n'],
    ['leading space', ' 000000000000002a-0000000000000101'],
    ['a non-hex digit', '000000000000002g-0000000000000101'],
    ['a decimal number', '42'],
  ])(
    'given %s, when parsed, then InvalidArgument quotes the value and shows the expected form',
    (_what, value) => {
      expect(isPosition(value)).toBe(false);
      expect(() => parsePosition(value)).toThrow(InvalidArgument);
      expect(() => parsePosition(value)).toThrow(
        `"${value}" is not a position; positions look like 000000000000002a-0000000000000101`,
      );
    },
  );

  it.each([[42], [null], [undefined], [{}], [['000000000000002a-0000000000000101']]])(
    'given the non-string %j, when checked, then it is not a position',
    (value) => {
      expect(isPosition(value)).toBe(false);
    },
  );
});
