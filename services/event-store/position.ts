import { InvalidArgument } from '../runtime/errors.js';
import type { Position } from './types.js';

/**
 * Positions are two unsigned 64-bit numbers written as fixed-width hex, so that string order
 * is log order and a checkpoint is a plain string. Postgres: (transaction id, sequence);
 * EventStoreDB: (commit, prepare).
 */
const WIDTH = 16;
const MAX = (1n << 64n) - 1n;
const PATTERN = /^[0-9a-f]{16}-[0-9a-f]{16}$/;

export const encodePosition = (major: bigint, minor: bigint): Position => {
  if (major < 0n || minor < 0n || major > MAX || minor > MAX) {
    throw new InvalidArgument(
      `Position parts must be unsigned 64-bit integers (got ${major}, ${minor})`,
    );
  }
  return `${major.toString(16).padStart(WIDTH, '0')}-${minor.toString(16).padStart(WIDTH, '0')}` as Position;
};

export const isPosition = (value: unknown): value is Position =>
  typeof value === 'string' && PATTERN.test(value);

/** Parses a checkpoint given by a person or a file; throws a readable error otherwise. */
export const parsePosition = (value: string): Position => {
  if (!isPosition(value)) {
    throw new InvalidArgument(
      `"${value}" is not a position; positions look like 000000000000002a-0000000000000101 (as printed by "cogitave events")`,
    );
  }
  return value;
};

export const decodePosition = (position: Position): { major: bigint; minor: bigint } => {
  const [major = '', minor = ''] = parsePosition(position).split('-');
  return { major: BigInt(`0x${major}`), minor: BigInt(`0x${minor}`) };
};

export const comparePositions = (a: Position, b: Position): number => (a < b ? -1 : a > b ? 1 : 0);
