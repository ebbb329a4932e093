import { describe, expect, it } from 'vitest';
import { contentHash, eventContent } from '../../../services/event-store/hash-chain.js';
import { encodePosition } from '../../../services/event-store/position.js';
import type {
  AppendOptions,
  EventMetadata,
  EventToAppend,
  Position,
} from '../../../services/event-store/types.js';
import {
  MAX_EVENTS_PER_APPEND,
  MAX_READ_COUNT,
  validateAppend,
  validateReadAll,
  validateReadStream,
} from '../../../services/event-store/validation.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';

const ANY: AppendOptions = { expectedRevision: 'any' };

const metadata = (extra: Record<string, unknown> = {}): EventMetadata => ({
  actor: 'agent:test',
  correlationId: 'corr-1',
  causationId: 'cause-1',
  at: '2026-03-01T12:00:00.000Z',
  ...extra,
});

let counter = 0;
const uuid = (): string => {
  counter += 1;
  return `3f2b8c1e-4d5a-4e6f-8a7b-${counter.toString(16).padStart(12, '0')}`;
};

const event = (overrides: Partial<Record<keyof EventToAppend, unknown>> = {}): EventToAppend =>
  ({
    id: uuid(),
    type: 'OrderPlaced',
    data: { total: 10 },
    metadata: metadata(),
    ...overrides,
  }) as EventToAppend;

/** Runs `run`, expects InvalidArgument, returns its message. */
const invalid = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgument);
    expect((error as InvalidArgument).code).toBe('INVALID_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error('expected InvalidArgument, but nothing was thrown');
};

describe('validateAppend accepts and normalises good input', () => {
  it('given a valid event, when validated, then it comes back as equal plain JSON with the canonical content its hash covers', () => {
    const input = event({ data: { total: 10, lines: [{ sku: 'a', qty: 2 }] } });

    const [output] = validateAppend('order-1', [input], ANY);

    expect(output).toEqual({
      id: input.id,
      type: input.type,
      data: input.data,
      metadata: input.metadata,
      content: eventContent('order-1', input),
    });
    expect(JSON.parse(output!.content)).toEqual({
      id: input.id,
      streamId: 'order-1',
      type: input.type,
      data: input.data,
      metadata: input.metadata,
    });
  });

  it('given plain events and the same events needing normalisation, when validated, then both give the content of the JSON round trip', () => {
    const plain = { note: 'x', nested: [1, { b: true, a: null }], accent: 'é' };
    const withDate = {
      ...plain,
      at: new Date(Date.UTC(2026, 2, 1)),
      gone: undefined,
      emoji: '\uD83D\uDE00',
    };
    const [fast, long] = validateAppend(
      'order-1',
      [
        event({ data: plain }),
        event({ id: '3f2b8c1e-4d5a-4e6f-8a7b-00000000000f', data: withDate }),
      ],
      ANY,
    );

    expect(fast!.content).toBe(eventContent('order-1', { ...fast!, data: plain }));
    expect((JSON.parse(long!.content) as { data: unknown }).data).toEqual(
      JSON.parse(JSON.stringify(withDate)),
    );
    expect(long!.content).toBe(eventContent('order-1', long!));
  });

  it('given an uppercase UUID, when validated, then the id is lowercased', () => {
    const id = '3F2B8C1E-4D5A-4E6F-8A7B-9C0D1E2F3A4B';

    expect(validateAppend('order-1', [event({ id })], ANY)[0]!.id).toBe(id.toLowerCase());
  });

  it('given data with a Date, undefined members and undefined data, when validated, then it is normalised as it will be read back', () => {
    const [withDate, withoutData] = validateAppend(
      'order-1',
      [
        event({ data: { at: new Date(Date.UTC(2026, 0, 2)), gone: undefined, kept: null } }),
        event({ data: undefined }),
      ],
      ANY,
    );

    expect(withDate!.data).toEqual({ at: '2026-01-02T00:00:00.000Z', kept: null });
    expect(Object.keys(withDate!.data as object)).toEqual(['at', 'kept']);
    expect(withoutData!.data).toBeNull();
  });

  it('given metadata with extra keys and an "at" with a timezone offset, when validated, then they are kept', () => {
    const meta = metadata({ at: '2026-03-01T14:00:00+02:00', tenant: 'acme', tags: ['a'] });

    expect(validateAppend('order-1', [event({ metadata: meta })], ANY)[0]!.metadata).toEqual(meta);
  });

  it('given a normalised event, when its content hash is taken before and after a JSON round trip, then the hashes agree', () => {
    const [output] = validateAppend(
      'order-1',
      [event({ data: { when: new Date(0), nested: { b: 1, a: undefined } } })],
      ANY,
    );

    const readBack = JSON.parse(JSON.stringify(output)) as EventToAppend;
    expect(contentHash('order-1', readBack)).toBe(contentHash('order-1', output!));
  });

  it.each([
    ['a short id', 'a'],
    ['a 200-character id', 'x'.repeat(200)],
    ['a "$" after the first character', 'order$1'],
    ['unicode letters', 'café-ünïcode-1'],
    ['slashes, colons and dots', 'tenant/acme:order.1'],
  ])('given a stream id with %s, when validated, then it is accepted', (_what, streamId) => {
    expect(validateAppend(streamId, [event()], ANY)).toHaveLength(1);
  });

  it.each([['any'], ['no_stream'], ['stream_exists'], [0n], [42n], [2n ** 63n]] as const)(
    'given expectedRevision %s, when validated, then it is accepted',
    (expectedRevision) => {
      expect(validateAppend('order-1', [event()], { expectedRevision })).toHaveLength(1);
    },
  );

  it('given exactly the maximum number of events, when validated, then all are returned in order', () => {
    const events = Array.from({ length: MAX_EVENTS_PER_APPEND }, () => event());

    const output = validateAppend('order-1', events, ANY);

    expect(output.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it.each([
    ['100 characters', 'T'.repeat(100)],
    ['digits, _ . : -', 'order.v2:Item_Added-3'],
  ])('given an event type of %s, when validated, then it is accepted', (_what, type) => {
    expect(validateAppend('order-1', [event({ type })], ANY)[0]!.type).toBe(type);
  });
});

describe('validateAppend rejects each rule, naming the field', () => {
  it.each([
    ['empty', '', 'stream id: must not be empty'],
    ['201 characters', 'x'.repeat(201), 'stream id: must be at most 200 characters'],
    ['a space', 'order 1', 'stream id: must have no spaces or control characters'],
    ['a tab', 'order\t1', 'stream id: must have no spaces or control characters'],
    ['a newline', 'order-1\n', 'stream id: must have no spaces or control characters'],
    ['a NUL', 'order\u00001', 'stream id: must have no spaces or control characters'],
    ['a leading "$"', '$all', 'not start with "$" (reserved)'],
  ])(
    'given a stream id with %s, when validated, then it is refused',
    (_what, streamId, message) => {
      expect(invalid(() => validateAppend(streamId, [event()], ANY))).toContain(message);
    },
  );

  it.each([[-1n], [1], ['latest'], [undefined], [null]])(
    'given expectedRevision %s, when validated, then it is refused naming expectedRevision',
    (expectedRevision) => {
      expect(
        invalid(() =>
          validateAppend('order-1', [event()], { expectedRevision } as unknown as AppendOptions),
        ),
      ).toBe(
        'expectedRevision must be "any", "no_stream", "stream_exists" or a non-negative bigint revision',
      );
    },
  );

  it('given no events, when validated, then it is refused', () => {
    expect(invalid(() => validateAppend('order-1', [], ANY))).toBe(
      'append needs at least one event',
    );
  });

  it('given one event more than the maximum, when validated, then it is refused with both numbers', () => {
    const events = Array.from({ length: MAX_EVENTS_PER_APPEND + 1 }, () => event());

    expect(invalid(() => validateAppend('order-1', events, ANY))).toBe(
      'append takes at most 1000 events (got 1001)',
    );
  });

  it.each([
    ['not a UUID', { id: 'order-1-event' }, 'event 1: id '],
    ['a UUID missing a digit', { id: '3f2b8c1e-4d5a-4e6f-8a7b-9c0d1e2f3a4' }, 'event 1: id '],
    ['a numeric id', { id: 42 }, 'event 1: id '],
    [
      'a type starting with a digit',
      { type: '1OrderPlaced' },
      'event 1: type must start with a letter',
    ],
    ['a type with a space', { type: 'Order Placed' }, 'event 1: type must start with a letter'],
    [
      'a type of 101 characters',
      { type: 'T'.repeat(101) },
      'event 1: type must start with a letter',
    ],
    ['an empty type', { type: '' }, 'event 1: type '],
    ['no metadata', { metadata: undefined }, 'event 1: metadata '],
    ['an empty actor', { metadata: metadata({ actor: '' }) }, 'event 1: metadata.actor '],
    [
      'a numeric correlationId',
      { metadata: metadata({ correlationId: 7 }) },
      'event 1: metadata.correlationId ',
    ],
    [
      'an "at" without offset',
      { metadata: metadata({ at: '2026-03-01T12:00:00' }) },
      'event 1: metadata.at ',
    ],
    [
      'an "at" that is only a date',
      { metadata: metadata({ at: '2026-03-01' }) },
      'event 1: metadata.at ',
    ],
    [
      'an "at" that is not a date',
      { metadata: metadata({ at: 'yesterday' }) },
      'event 1: metadata.at ',
    ],
    [
      'metadata.prevHash',
      { metadata: metadata({ prevHash: 'abc' }) },
      'event 1: metadata must not set prevHash or hash',
    ],
    [
      'metadata.hash',
      { metadata: metadata({ hash: 'abc' }) },
      'event 1: metadata must not set prevHash or hash',
    ],
  ])(
    'given the second event has %s, when validated, then the message names the event and the field',
    (_what, overrides, message) => {
      expect(invalid(() => validateAppend('order-1', [event(), event(overrides)], ANY))).toContain(
        message,
      );
    },
  );

  it.each([['actor'], ['correlationId'], ['causationId'], ['at']])(
    'given metadata without %s, when validated, then the message names that metadata field',
    (field) => {
      const meta = Object.fromEntries(Object.entries(metadata()).filter(([key]) => key !== field));

      expect(invalid(() => validateAppend('order-1', [event({ metadata: meta })], ANY))).toContain(
        `event 0: metadata.${field} `,
      );
    },
  );

  it('given metadata missing several fields, when validated, then every missing field is named at once', () => {
    const message = invalid(() =>
      validateAppend('order-1', [event({ metadata: { actor: 'a' } })], ANY),
    );

    expect(message).toContain('metadata.correlationId');
    expect(message).toContain('metadata.causationId');
    expect(message).toContain('metadata.at');
  });

  it.each([
    ['a data string', { data: { note: 'a\u0000b' } }, 'event.data.note'],
    ['a data key', { data: { ['k\u0000']: 1 } }, 'event.data key'],
    ['a nested array string', { data: { list: [['x\u0000']] } }, 'event.data.list[0][0]'],
    ['a metadata value', { metadata: metadata({ actor: 'agent\u0000' }) }, 'event.metadata.actor'],
  ])(
    'given a NUL character in %s, when validated, then it is refused naming where',
    (_what, overrides, path) => {
      const message = invalid(() => validateAppend('order-1', [event(overrides)], ANY));
      expect(message).toMatch(/^event 0: .* must not contain NUL characters$/);
      expect(message).toContain(path);
    },
  );

  it('given the same id twice in one append, when validated, then the message names the later event and the id', () => {
    const first = event();

    expect(
      invalid(() => validateAppend('order-1', [first, event(), event({ id: first.id })], ANY)),
    ).toBe(`event 2: id ${first.id} appears twice in one append`);
  });

  // Product bug: the duplicate check compares ids before they are lowercased, so one UUID
  // written in two cases passes and validateAppend returns two events with the same id.
  it('given the same UUID twice in one append, once upper- and once lowercase, when validated, then it is refused as a duplicate', () => {
    const id = '3f2b8c1e-4d5a-4e6f-8a7b-9c0d1e2f3a4b';

    expect(
      invalid(() =>
        validateAppend('order-1', [event({ id }), event({ id: id.toUpperCase() })], ANY),
      ),
    ).toContain('appears twice in one append');
  });

  // Product bug: the NUL check searches the JSON text for "\u0000", which also matches an
  // escaped backslash followed by "u0000" — ordinary text (a Windows path, a JSON snippet).
  it('given a string holding a literal backslash followed by "u0000" (no NUL character), when validated, then it is accepted', () => {
    const data = { path: 'C:\\u0000\\logs', snippet: '"\\u0000"' };

    const [validated] = validateAppend('order-1', [event({ data })], ANY);
    expect(validated!.data).toEqual(data);
    expect((JSON.parse(validated!.content) as { data: unknown }).data).toEqual(data);
  });

  // Product bug: values JSON cannot hold surface as a bare TypeError/Error (not
  // INVALID_ARGUMENT), or — for a lone surrogate — pass validation and then make contentHash
  // (canonicalize) throw during the append.
  it.each([
    ['a BigInt', { amount: 10n }],
    ['a lone surrogate', { note: 'broken \uD800 text' }],
  ])(
    'given data with %s, when validated, then it is refused as an invalid argument',
    (_what, data) => {
      expect(invalid(() => validateAppend('order-1', [event({ data })], ANY))).toMatch(
        /^event 0: /,
      );
    },
  );
});

describe('validateReadStream', () => {
  it.each([
    [{}],
    [{ maxCount: 1 }],
    [{ maxCount: MAX_READ_COUNT }],
    [{ fromRevision: 0n, direction: 'backwards' as const }],
    [{ fromRevision: 2n ** 63n }],
  ])('given valid options %o, when validated, then nothing is thrown', (options) => {
    expect(() => {
      validateReadStream('order-1', options);
    }).not.toThrow();
  });

  it('given an invalid stream id, when validated, then the message names the stream id', () => {
    expect(
      invalid(() => {
        validateReadStream('$all', {});
      }),
    ).toContain('stream id: ');
  });

  it.each([[0], [MAX_READ_COUNT + 1], [1.5], [-1], [NaN]])(
    'given maxCount %s, when validated, then the message names maxCount and its range',
    (maxCount) => {
      expect(
        invalid(() => {
          validateReadStream('order-1', { maxCount });
        }),
      ).toBe('maxCount must be an integer from 1 to 10000');
    },
  );

  it.each([[-1n], [1], ['1']])(
    'given fromRevision %s, when validated, then the message names fromRevision',
    (fromRevision) => {
      expect(
        invalid(() => {
          validateReadStream('order-1', { fromRevision } as unknown as { fromRevision: bigint });
        }),
      ).toBe('fromRevision must be a non-negative bigint');
    },
  );
});

describe('validateReadAll', () => {
  it('given a position from the store and a count in range, when validated, then nothing is thrown', () => {
    expect(() => {
      validateReadAll({ fromPosition: encodePosition(5n, 1n), maxCount: MAX_READ_COUNT });
    }).not.toThrow();
    expect(() => {
      validateReadAll({});
    }).not.toThrow();
  });

  it.each([['42'], ['000000000000002A-0000000000000101'], ['']])(
    'given fromPosition %j, when validated, then the message names fromPosition',
    (fromPosition) => {
      expect(
        invalid(() => {
          validateReadAll({ fromPosition: fromPosition as Position });
        }),
      ).toBe('fromPosition is not a position returned by the event store');
    },
  );

  it('given maxCount out of range, when validated, then the message names maxCount', () => {
    expect(
      invalid(() => {
        validateReadAll({ maxCount: 0 });
      }),
    ).toContain('maxCount');
    expect(
      invalid(() => {
        validateReadAll({ maxCount: MAX_READ_COUNT + 1 });
      }),
    ).toContain('maxCount');
  });
});
