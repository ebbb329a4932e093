import { describe, expect, it } from 'vitest';
import type { Position } from '../../../services/event-store/types.js';
import {
  buildChangePayload,
  collectionOf,
  NOTIFY_MAX_BYTES,
  parseChangePayload,
  type ChangeNotice,
} from '../../../projections/change-payload.js';

const P = '00000000000003e8-0000000000000010' as Position;
const notice = (uris: string[], collections: string[] = []): ChangeNotice => ({
  projection: 'requests',
  position: P,
  uris,
  collections,
});
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('change notice payload', () => {
  it('carries every URI and collection when it fits', () => {
    const payload = buildChangePayload(
      notice(['cogitave://request/req-1'], ['cogitave://request/']),
    );
    expect(JSON.parse(payload)).toEqual({
      projection: 'requests',
      position: P,
      uris: ['cogitave://request/req-1'],
      collections: ['cogitave://request/'],
    });
  });

  it('names each URI once', () => {
    const payload = buildChangePayload(notice(['cogitave://request/a', 'cogitave://request/a']));
    expect(parseChangePayload(payload)?.uris).toEqual(['cogitave://request/a']);
  });

  it('stays under the NOTIFY limit by sending the collections of every URI, truncated', () => {
    const uris = Array.from(
      { length: 400 },
      (_, i) => `cogitave://request/req-2026-${String(i).padStart(4, '0')}`,
    );
    uris.push('cogitave://unit/u-1');
    const payload = buildChangePayload(notice(uris));
    expect(bytes(payload)).toBeLessThanOrEqual(NOTIFY_MAX_BYTES);
    expect(JSON.parse(payload)).toEqual({
      projection: 'requests',
      position: P,
      uris: [],
      collections: ['cogitave://request/', 'cogitave://unit/'],
      truncated: true,
    });
  });

  it('counts bytes, not characters', () => {
    // 3 bytes per character: fits by length, not by bytes.
    const uri = `cogitave://request/${'€'.repeat(1000)}`;
    expect(uri.length).toBeLessThan(1100);
    expect(parseChangePayload(buildChangePayload(notice([uri]), 2000))?.truncated).toBe(true);
    expect(parseChangePayload(buildChangePayload(notice([uri]), 4000))?.uris).toEqual([uri]);
  });

  it('keeps exactly at the limit and truncates one byte beyond it', () => {
    const full = buildChangePayload(notice(['cogitave://request/x']));
    expect(buildChangePayload(notice(['cogitave://request/x']), bytes(full))).toBe(full);
    expect(
      parseChangePayload(buildChangePayload(notice(['cogitave://request/x']), bytes(full) - 1))
        ?.truncated,
    ).toBe(true);
  });

  it('drops the collections too when even they do not fit ("re-list everything")', () => {
    const collections = Array.from({ length: 300 }, (_, i) => `cogitave://type-${i}/`);
    const payload = buildChangePayload(notice([], collections), 1000);
    expect(JSON.parse(payload)).toEqual({
      projection: 'requests',
      position: P,
      uris: [],
      collections: [],
      truncated: true,
    });
  });

  it('round-trips through parse and rejects what is not a notice', () => {
    const original = notice(['cogitave://request/req-1'], ['cogitave://request/']);
    expect(parseChangePayload(buildChangePayload(original))).toEqual(original);
    expect(parseChangePayload('not json')).toBeUndefined();
    expect(
      parseChangePayload('{"projection":"requests","position":"nope","uris":[],"collections":[]}'),
    ).toBeUndefined();
    expect(parseChangePayload('{"projection":"requests"}')).toBeUndefined();
  });

  it('finds the collection of a resource URI', () => {
    expect(collectionOf('cogitave://request/req-2026-0001')).toBe('cogitave://request/');
    expect(collectionOf('cogitave://request/')).toBe('cogitave://request/');
    expect(collectionOf('not a uri')).toBeUndefined();
  });
});
