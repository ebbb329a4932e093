import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventDataParser } from '../../../projections/event-data.js';
import { eventContent } from '../../../services/event-store/hash-chain.js';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';

const stored = (type: string, data: unknown): RecordedEvent => {
  const event = {
    id: '00000000-0000-4000-8000-000000000001',
    type,
    data,
    metadata: {
      actor: 'agent:x',
      correlationId: 'c',
      causationId: 'c',
      at: '2026-01-05T09:00:00.000Z',
    },
  };
  return {
    ...event,
    streamId: 'thing-1',
    revision: 0n,
    position: '0000000000000001-0000000000000001' as Position,
    content: eventContent('thing-1', event),
    prevHash: null,
    hash: 'h',
  };
};

describe('event data parser', () => {
  const parse = eventDataParser('Thing', {
    ThingMade: z.looseObject({ name: z.string().min(1), size: z.int() }),
  });

  it('given a known type with valid data, when parsed, then the data comes back, unknown fields kept', () => {
    expect(parse(stored('ThingMade', { name: 'a', size: 2, extra: true }))).toEqual({
      name: 'a',
      size: 2,
      extra: true,
    });
  });

  it('given invalid data, when parsed, then every offending field is named', () => {
    expect(() => parse(stored('ThingMade', { name: '', size: 1.5 }))).toThrow(
      /ThingMade has invalid data \(name: .*; size: /,
    );
  });

  it('given an unknown type, including names of Object.prototype members, when parsed, then the type is named', () => {
    for (const type of ['ThingLost', 'toString', '__proto__', 'constructor', 'valueOf']) {
      expect(() => parse(stored(type, {}))).toThrow(`${type} is not a Thing event`);
    }
  });
});
