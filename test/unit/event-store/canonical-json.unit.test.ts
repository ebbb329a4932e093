import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import canonicalize from 'canonicalize';
import { requestDocument, type RequestState } from '../../../services/requests/read-model/state.js';
import { canonicalJson, plainCanonicalJson } from '../../../services/event-store/canonical-json.js';
import { PROPERTY_TIMEOUT_MS } from '../../support/property.js';

const libraryJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
};

/**
 * Event, resource and digest hashes cover canonical JSON: the fast serialiser must give the
 * library's text byte for byte (or the library's error) for any value, and its plain path must
 * give either that text or nothing.
 */
const same = (value: unknown): void => {
  let expected: { text: string } | { error: string };
  try {
    expected = { text: libraryJson(value) };
  } catch (error) {
    expected = { error: (error as Error).message };
  }
  if ('text' in expected) expect(canonicalJson(value)).toBe(expected.text);
  else expect(() => canonicalJson(value)).toThrow(expected.error);
  const plain = plainCanonicalJson(value);
  if (plain !== undefined) expect(plain).toBe('text' in expected ? expected.text : undefined);
};

describe('canonical JSON', () => {
  it(
    'given any JSON value, when serialised, then the text is the library’s',
    () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          same(value);
        }),
        { numRuns: 200 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'given strings of any UTF-16 code units, including lone surrogates, when serialised, then text or error are the library’s',
    () => {
      const unit = fc.string({ unit: 'binary' });
      fc.assert(
        fc.property(unit, fc.dictionary(unit, unit), (text, record) => {
          same(text);
          same(record);
          same([text, { [text]: record }]);
        }),
        { numRuns: 150 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('given text with emoji (paired surrogates), when serialised, then the fast path writes the library’s text', () => {
    const page = { body: 'Ship it \uD83D\uDE80 and \uD83D\uDE00', title: 'é "q"\n' };
    expect(plainCanonicalJson(page)).toBe(libraryJson(page));
    // A lone surrogate stays the library's to refuse.
    expect(plainCanonicalJson({ body: 'half \uD83D.' })).toBeUndefined();
    expect(plainCanonicalJson({ body: '\uDE80 half' })).toBeUndefined();
  });

  it('given values outside plain JSON, when serialised, then the library decides', () => {
    for (const value of [
      NaN,
      -Infinity,
      -0,
      1e21,
      5e-7,
      [1, undefined, 2],
      { a: undefined, b: 1 },
      { toJSON: () => ({ z: 1, a: 2 }) },
      new Date(Date.UTC(2026, 0, 5)),
      '\uD83D\uDE00 paired',
      'lone \uD800',
      { '\uDC00': 1 },
      Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
    ]) {
      same(value);
    }
  });

  it('given a request document, when serialised, then keys are sorted at every level', () => {
    const state: RequestState = {
      requestId: 'req-2026-0001',
      title: 'Faster "search" é',
      problem: 'Slow\nsearch',
      product: 'docs',
      requester: 'team:docs',
      priority: 'high',
      acceptanceCriteria: [{ id: 'ac-1', text: 'p95 < 1 s' }],
      links: [{ url: 'https://example.com', title: 'Spec' }],
      stage: 'accepted',
      status: 'active',
      resumeStage: null,
      proposals: [],
      pendingProposalId: null,
      evidence: { specLink: 'https://x/spec', notes: 'n', links: ['b', 'a'] },
      intakeIssue: { repository: 'cogitave/requests', number: 7, url: 'https://x' },
      proposedBy: 'agent:intake',
      closedReason: null,
      createdAt: '2026-01-05T09:00:00.000Z',
      updatedAt: '2026-01-05T09:05:00.000Z',
      version: 4,
      lastPosition: '0000000000000001-0000000000000005' as RequestState['lastPosition'],
    };
    const text = canonicalJson(requestDocument(state));
    expect(text).toBe(libraryJson(requestDocument(state)));
    expect(plainCanonicalJson(requestDocument(state))).toBe(text);
    expect(text.startsWith('{"acceptanceCriteria":[{"id":"ac-1","text":"p95 < 1 s"}],')).toBe(true);
    expect(text).toContain(
      '"evidence":{"links":["b","a"],"notes":"n","specLink":"https://x/spec"}',
    );
  });
});
