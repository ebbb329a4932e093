import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  chainHash,
  contentHash,
  eventContent,
  findChainBreak,
} from '../../../services/event-store/hash-chain.js';
import { encodePosition } from '../../../services/event-store/position.js';
import type { EventMetadata, RecordedEvent } from '../../../services/event-store/types.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const STREAM = 'order-1';

const metadataFor = (revision: number): EventMetadata => ({
  actor: 'agent:test',
  correlationId: 'corr-1',
  causationId: `cause-${revision}`,
  at: `2026-01-0${revision + 1}T10:00:00.000Z`,
});

/** A correctly chained stream of `count` events, built with the module's own formulas. */
const buildChain = (count: number, streamId = STREAM): RecordedEvent[] => {
  const events: RecordedEvent[] = [];
  let prevHash: string | null = null;
  for (let i = 0; i < count; i += 1) {
    const body = {
      id: `00000000-0000-4000-8000-00000000000${i}`,
      type: i === 0 ? 'OrderPlaced' : 'ItemAdded',
      data: { item: `sku-${i}`, quantity: i + 1 },
      metadata: metadataFor(i),
    };
    const revision = BigInt(i);
    const hash = chainHash(prevHash, revision, contentHash(streamId, body));
    events.push({
      ...body,
      streamId,
      revision,
      position: encodePosition(100n + revision, 7n),
      content: eventContent(streamId, body),
      prevHash,
      hash,
    });
    prevHash = hash;
  }
  return events;
};

describe('canonicalJson', () => {
  it('given objects whose keys were inserted in different orders, when canonicalised, then the text is identical with keys sorted at every depth', () => {
    const a = canonicalJson({ b: 1, a: { z: [3, { y: 1, x: 2 }], m: null } });
    const b = canonicalJson({ a: { m: null, z: [3, { x: 2, y: 1 }] }, b: 1 });

    expect(a).toBe('{"a":{"m":null,"z":[3,{"x":2,"y":1}]},"b":1}');
    expect(b).toBe(a);
  });

  it('given an array, when canonicalised, then element order is kept', () => {
    expect(canonicalJson([3, 1, 2, 'b', 'a'])).toBe('[3,1,2,"b","a"]');
  });

  it('given keys outside ASCII, when canonicalised, then they sort by UTF-16 code units (RFC 8785), not by code point', () => {
    // U+1F600 is stored as the surrogate pair D83D DE00, which sorts before U+FB33.
    const text = canonicalJson({ '\uFB33': 3, '\u{1F600}': 2, '\u20AC': 1, é: 0, '\r': 4, a: 5 });

    expect(text).toBe('{"\\r":4,"a":5,"\u00e9":0,"\u20ac":1,"\u{1F600}":2,"\uFB33":3}');
  });

  it.each([
    [1.0, '1'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [123.456, '123.456'],
    [-1.5e-10, '-1.5e-10'],
    [2 ** 53 + 2, '9007199254740994'],
    [Number.MAX_VALUE, '1.7976931348623157e+308'],
  ])(
    'given the number %d, when canonicalised, then it is written in the ECMAScript shortest form %s',
    (value, text) => {
      expect(canonicalJson(value)).toBe(text);
      expect(canonicalJson({ n: value })).toBe(`{"n":${text}}`);
    },
  );

  it('given strings with quotes, backslashes and control characters, when canonicalised, then only the JSON-required escapes are used', () => {
    expect(canonicalJson('say "hi"\\\n\t\u0001é\u2028')).toBe(
      '"say \\"hi\\"\\\\\\n\\t\\u0001é\u2028"',
    );
  });

  it('given an object with an undefined member, when canonicalised, then the member is left out as JSON.stringify would', () => {
    expect(canonicalJson({ b: 1, a: undefined })).toBe('{"b":1}');
  });

  it.each([
    ['undefined', undefined],
    ['NaN', NaN],
    ['Infinity', { n: Infinity }],
    ['a lone surrogate', { s: 'x\uD800' }],
  ])(
    'given %s, when canonicalised, then it throws because JSON cannot represent it',
    (_what, value) => {
      expect(() => canonicalJson(value)).toThrow();
    },
  );
});

describe('contentHash and chainHash', () => {
  const body = {
    id: '00000000-0000-4000-8000-000000000001',
    type: 'OrderPlaced',
    data: { total: 10, lines: [{ sku: 'a' }] },
    metadata: metadataFor(0),
  };

  it('given an event, when hashed, then the hash is sha256 of the canonical JSON of id, streamId, type, data and metadata', () => {
    const expected = sha256(
      canonicalJson({
        data: body.data,
        id: body.id,
        metadata: body.metadata,
        streamId: STREAM,
        type: body.type,
      }),
    );

    expect(contentHash(STREAM, body)).toBe(expected);
    expect(contentHash(STREAM, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('given the same event with keys in another order, when hashed, then the content hash is the same', () => {
    const reordered = {
      metadata: {
        at: body.metadata.at,
        causationId: body.metadata.causationId,
        correlationId: body.metadata.correlationId,
        actor: body.metadata.actor,
      },
      data: { lines: [{ sku: 'a' }], total: 10 },
      type: body.type,
      id: body.id,
    };

    expect(contentHash(STREAM, reordered)).toBe(contentHash(STREAM, body));
  });

  it('given a recorded event carrying position, revision and chain fields, when hashed, then only the content fields count', () => {
    const [recorded] = buildChain(1);

    expect(contentHash(STREAM, recorded!)).toBe(
      contentHash(STREAM, {
        id: recorded!.id,
        type: recorded!.type,
        data: recorded!.data,
        metadata: recorded!.metadata,
      }),
    );
  });

  it.each([
    ['the stream id', () => contentHash('order-2', body)],
    ['the id', () => contentHash(STREAM, { ...body, id: '00000000-0000-4000-8000-000000000002' })],
    ['the type', () => contentHash(STREAM, { ...body, type: 'OrderCancelled' })],
    ['one data value', () => contentHash(STREAM, { ...body, data: { ...body.data, total: 11 } })],
    [
      'the data type of a value',
      () => contentHash(STREAM, { ...body, data: { ...body.data, total: '10' } }),
    ],
    [
      'one metadata value',
      () => contentHash(STREAM, { ...body, metadata: { ...body.metadata, actor: 'x' } }),
    ],
    [
      'an extra metadata key',
      () => contentHash(STREAM, { ...body, metadata: { ...body.metadata, tenant: 't' } }),
    ],
  ])('given a change to %s, when hashed, then the content hash changes', (_what, hashChanged) => {
    expect(hashChanged()).not.toBe(contentHash(STREAM, body));
  });

  it('given a previous hash, a revision and a content hash, when chained, then the hash is sha256 of "prev:revision:content"', () => {
    expect(chainHash('abc', 7n, 'def')).toBe(sha256('abc:7:def'));
    expect(chainHash(null, 0n, 'def')).toBe(sha256(':0:def'));
    expect(chainHash('abc', 2n ** 64n - 1n, 'def')).toBe(sha256('abc:18446744073709551615:def'));
  });

  it('given the same content at another revision or after another hash, when chained, then the hash changes', () => {
    const base = chainHash('abc', 1n, 'def');

    expect(chainHash('abc', 2n, 'def')).not.toBe(base);
    expect(chainHash('abd', 1n, 'def')).not.toBe(base);
    expect(chainHash(null, 1n, 'def')).not.toBe(base);
  });
});

describe('findChainBreak', () => {
  it('given an intact chain, when checked, then there is no break', () => {
    expect(findChainBreak(buildChain(5))).toBeNull();
  });

  it('given no events, when checked, then there is no break', () => {
    expect(findChainBreak([])).toBeNull();
  });

  it('given a missing event (revision 2 dropped), when checked, then the break is at revision 3, the first event after the gap', () => {
    const chain = buildChain(5);
    const withGap = [chain[0]!, chain[1]!, chain[3]!, chain[4]!];

    expect(findChainBreak(withGap)).toEqual({
      streamId: STREAM,
      revision: 3n,
      position: chain[3]!.position,
      reason: 'revision 3 follows 1: a gap or reorder',
    });
  });

  it('given two events swapped, when checked, then the break is at the first out-of-place event', () => {
    const chain = buildChain(5);
    const swapped = [chain[0]!, chain[1]!, chain[3]!, chain[2]!, chain[4]!];

    const found = findChainBreak(swapped);

    expect(found?.revision).toBe(3n);
    expect(found?.position).toBe(chain[3]!.position);
    expect(found?.reason).toContain('gap or reorder');
  });

  it('given a stream read from revision 1 without a previous link, when checked, then the break is at revision 1', () => {
    const found = findChainBreak(buildChain(3).slice(1));

    expect(found?.revision).toBe(1n);
    expect(found?.reason).toBe('revision 1 follows -1: a gap or reorder');
  });

  it('given an event whose prevHash does not match the previous hash (its own hash consistent), when checked, then the break is at that event', () => {
    const chain = buildChain(5);
    const forged = chain[3]!;
    const wrongPrev = 'f'.repeat(64);
    chain[3] = {
      ...forged,
      prevHash: wrongPrev,
      hash: chainHash(wrongPrev, forged.revision, contentHash(STREAM, forged)),
    };

    expect(findChainBreak(chain)).toEqual({
      streamId: STREAM,
      revision: 3n,
      position: forged.position,
      reason: 'prevHash does not match the hash of the previous event',
    });
  });

  it('given a first event with a prevHash, when checked, then the break is at revision 0', () => {
    const chain = buildChain(2);
    chain[0] = { ...chain[0]!, prevHash: 'a'.repeat(64) };

    expect(findChainBreak(chain)?.revision).toBe(0n);
    expect(findChainBreak(chain)?.reason).toContain('prevHash');
  });

  /** The event as stored with other data or metadata: its content re-encoded, its hash kept. */
  const restored = (e: RecordedEvent, change: Partial<RecordedEvent>): RecordedEvent => {
    const altered = { ...e, ...change };
    return { ...altered, content: eventContent(altered.streamId, altered) };
  };

  it.each([
    ['data', (e: RecordedEvent) => restored(e, { data: { item: 'sku-2', quantity: 99 } })],
    [
      'metadata',
      (e: RecordedEvent) => restored(e, { metadata: { ...e.metadata, actor: 'mallory' } }),
    ],
    ['one byte of the content', (e: RecordedEvent) => ({ ...e, content: `${e.content} ` })],
    ['hash', (e: RecordedEvent): RecordedEvent => ({ ...e, hash: '0'.repeat(64) })],
  ])(
    'given the %s of revision 2 altered in place, when checked, then the break is at revision 2 as altered content',
    (_field, alter) => {
      const chain = buildChain(5);
      chain[2] = alter(chain[2]!);

      const found = findChainBreak(chain);

      expect(found?.revision).toBe(2n);
      expect(found?.position).toBe(chain[2].position);
      expect(found?.reason).toBe('hash does not match the event content (the event was altered)');
    },
  );

  it.each([
    ['type', { type: 'ItemRemoved' }, 'another event type'],
    ['id', { id: '00000000-0000-4000-8000-0000000000ff' }, 'another event id'],
    ['stream id', { streamId: 'order-9' }, 'another stream'],
  ])(
    'given the %s of revision 2 changed beside an intact content, when checked, then the break is at revision 2: its content names %s',
    (_field, change, named) => {
      const chain = buildChain(5);
      chain[2] = { ...chain[2]!, ...change };

      const found = findChainBreak(chain);

      expect(found?.revision).toBe(2n);
      expect(found?.reason).toBe(`the stored content names ${named} (the event was altered)`);
    },
  );

  it('given revision 2 altered and re-hashed to look consistent, when checked, then the next link (revision 3) breaks', () => {
    const chain = buildChain(5);
    const altered = restored(chain[2]!, { data: { item: 'sku-2', quantity: 1000 } });
    chain[2] = {
      ...altered,
      hash: chainHash(altered.prevHash, altered.revision, sha256(altered.content)),
    };

    expect(findChainBreak(chain.slice(0, 3))).toBeNull();
    const found = findChainBreak(chain);
    expect(found?.revision).toBe(3n);
    expect(found?.reason).toContain('prevHash');
  });

  it('given two breaks, when checked, then only the first is reported', () => {
    const chain = buildChain(5);
    chain[1] = restored(chain[1]!, { data: 'tampered' });
    chain[3] = restored(chain[3]!, { data: 'tampered too' });

    expect(findChainBreak(chain)?.revision).toBe(1n);
  });

  it('given a tail of the stream and the link before it, when checked, then the tail is verified as a continuation', () => {
    const chain = buildChain(5);
    const link = { revision: chain[2]!.revision, hash: chain[2]!.hash };

    expect(findChainBreak(chain.slice(3), link)).toBeNull();
  });

  it('given a tail of the stream and a wrong previous link, when checked, then the break is at the first event of the tail', () => {
    const chain = buildChain(5);

    expect(findChainBreak(chain.slice(3), { revision: 2n, hash: 'e'.repeat(64) })?.revision).toBe(
      3n,
    );
    expect(findChainBreak(chain.slice(3), { revision: 1n, hash: chain[2]!.hash })).toMatchObject({
      revision: 3n,
      reason: 'revision 3 follows 1: a gap or reorder',
    });
  });
});
