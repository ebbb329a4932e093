import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../services/commands/inputs.js';
import {
  addEdgeInputSchema,
  addNodeInputSchema,
  createNetworkInputSchema,
  MAX_DATA_BYTES,
} from '../../../services/networks/inputs.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';

const ok = (schema: Parameters<typeof parseInput>[0], value: unknown) =>
  schema.safeParse(value).success;

describe('Network inputs', () => {
  it('accepts names of letters, digits, _ . - up to 128 characters, starting with a letter or digit', () => {
    for (const name of ['module_deps', 'a', 'A.b-c_9', 'x'.repeat(128)]) {
      expect(ok(createNetworkInputSchema, { networkName: name })).toBe(true);
    }
    for (const name of ['', '-lead', '.hidden', 'has space', 'a/b', 'x'.repeat(129), 'é']) {
      expect(ok(createNetworkInputSchema, { networkName: name })).toBe(false);
    }
  });

  it('wants node ids non-empty and at most 256 characters', () => {
    const base = { networkName: 'n' };
    expect(ok(addNodeInputSchema, { ...base, nodeId: 'x'.repeat(256) })).toBe(true);
    expect(ok(addNodeInputSchema, { ...base, nodeId: '' })).toBe(false);
    expect(ok(addNodeInputSchema, { ...base, nodeId: 'x'.repeat(257) })).toBe(false);
  });

  it('wants attributes flat: scalar values only', () => {
    const base = { networkName: 'n', nodeId: 'a' };
    expect(
      ok(addNodeInputSchema, { ...base, attributes: { layer: 2, ok: true, s: 'x', z: null } }),
    ).toBe(true);
    expect(ok(addNodeInputSchema, { ...base, attributes: { nested: { a: 1 } } })).toBe(false);
    expect(ok(addNodeInputSchema, { ...base, attributes: { list: [1, 2] } })).toBe(false);
    expect(ok(addNodeInputSchema, { ...base, attributes: ['a'] })).toBe(false);
  });

  it('takes any JSON as data up to 64 KiB', () => {
    const base = { networkName: 'n', nodeId: 'a' };
    expect(ok(addNodeInputSchema, { ...base, data: { deep: [1, { x: 'y' }] } })).toBe(true);
    expect(ok(addNodeInputSchema, { ...base, data: 'x'.repeat(MAX_DATA_BYTES - 2) })).toBe(true);
    expect(ok(addNodeInputSchema, { ...base, data: 'x'.repeat(MAX_DATA_BYTES) })).toBe(false);
    expect(ok(addNodeInputSchema, { ...base, data: 10n })).toBe(false);
  });

  it('wants a finite numeric weight', () => {
    const base = { networkName: 'n', source: 'a', target: 'b' };
    expect(ok(addEdgeInputSchema, { ...base, weight: -2.5 })).toBe(true);
    expect(ok(addEdgeInputSchema, { ...base, weight: Number.POSITIVE_INFINITY })).toBe(false);
    expect(ok(addEdgeInputSchema, { ...base, weight: Number.NaN })).toBe(false);
    expect(ok(addEdgeInputSchema, { ...base, weight: '1' })).toBe(false);
  });

  it('throws InvalidArgument naming each bad field', () => {
    expect(() =>
      parseInput(
        addEdgeInputSchema,
        { networkName: 'bad name', source: '', target: 'b' },
        'addEdge',
      ),
    ).toThrow(InvalidArgument);
    expect(() =>
      parseInput(addEdgeInputSchema, { networkName: 'n', source: '', target: 'b' }, 'addEdge'),
    ).toThrow(/addEdge: source: must not be empty/);
  });
});
