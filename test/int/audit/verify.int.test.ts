import { afterEach, describe, expect, it } from 'vitest';
import { formatDigest, parseDigest } from '../../../services/audit/digest.js';
import { chainHash, eventContent, sha256Hex } from '../../../services/event-store/hash-chain.js';
import { event, openAuditBed, unguardSeal, type AuditBed } from './support.js';

/**
 * Tampering with a sealed, digested log, as someone with write access to the database would,
 * and what `verify` names. Each test gets a fresh database: three streams of four events,
 * interleaved, sealed and digested.
 */
const STREAMS = ['thing-a', 'thing-b', 'thing-c'];
let bed: AuditBed | undefined;

const freshLog = async (): Promise<AuditBed> => {
  bed = await openAuditBed('audit_verify');
  await bed.appendRound(STREAMS, 4);
  const publication = await bed.audit.publish();
  expect(publication?.digest.events).toBe(12);
  return bed;
};

afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const positionOf = async (b: AuditBed, stream: string, revision: number): Promise<string> => {
  const [event] = await b.store.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 });
  if (!event) throw new Error(`no ${stream}@${revision}`);
  return event.position;
};

describe('verify against the seal and the latest digest', () => {
  it('given an untouched log, when verified, then every event is compared with the seal and the signed digest matches', async () => {
    const b = await freshLog();
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report).toMatchObject({ ok: true, events: 12, streams: 3, sealed: 12, problem: null });
    expect(report.digest).toMatchObject({
      events: 12,
      matched: true,
      signature: { status: 'valid', pinned: true },
    });
    expect(report.limits).toEqual([]);
    const status = await b.audit.status();
    expect(status.lastVerification?.ok).toBe(true);
    expect(status.latestDigest?.digest.events).toBe(12);
    expect(status.latestDigest?.publishedTo).toEqual([`folder:${b.digestDir}`]);
  });

  it('given the newest events of a stream deleted after a digest, when verified, then the first of them is named as missing', async () => {
    const b = await freshLog();
    const position = await positionOf(b, 'thing-b', 2);
    await b.database.pool.query(
      "DELETE FROM event_store.events WHERE stream_id = 'thing-b' AND stream_revision >= 2",
    );
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({
      kind: 'missing',
      streamId: 'thing-b',
      revision: 2,
      position,
    });
    expect(report.problem?.reason).toContain('is not in the log');
    expect((await b.audit.status()).lastVerification?.ok).toBe(false);
  });

  it('given a whole stream deleted after a digest, when verified, then its first event is named as missing', async () => {
    const b = await freshLog();
    const position = await positionOf(b, 'thing-a', 0);
    await b.database.pool.query("DELETE FROM event_store.events WHERE stream_id = 'thing-a'");
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.problem).toMatchObject({
      kind: 'missing',
      streamId: 'thing-a',
      revision: 0,
      position,
      sequence: 0,
    });
  });

  it('given the newest event deleted with its seal link, when verified, then the digest names it as missing', async () => {
    const b = await freshLog();
    const digest = (await b.audit.published()).latest;
    await unguardSeal(b.database);
    await b.database.pool.query(
      "DELETE FROM event_store.events WHERE stream_id = 'thing-c' AND stream_revision = 3",
    );
    await b.database.pool.query('DELETE FROM audit.log_links WHERE sequence = 11');
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.problem).toMatchObject({
      kind: 'missing',
      streamId: 'thing-c',
      revision: 3,
      position: digest?.position,
      eventId: digest?.last?.id,
    });
    expect(report.problem?.reason).toContain('the newest 1 are missing');
  });

  it('given a stream deleted and the seal rebuilt to match, when verified, then the digest names what is missing, and once the count is forged too an earlier digest narrows where', async () => {
    const b = await freshLog();
    // A stream after the first digest; the second digest covers it.
    await b.appendRound(['thing-d'], 3);
    await b.audit.publish();
    expect((await b.audit.published()).all.map((d) => d.events)).toEqual([12, 15]);
    await unguardSeal(b.database);
    await b.database.pool.query("DELETE FROM event_store.events WHERE stream_id = 'thing-d'");
    await b.database.pool.query('DELETE FROM audit.log_links');
    await b.audit.seal();
    const short = await b.audit.verify({ kind: 'latest' });
    expect(short.problem).toMatchObject({ kind: 'missing', streamId: 'thing-d', revision: 2 });
    expect(short.problem?.reason).toContain('the newest 3 are missing');
    // Events forged in their place, sealed again: the count holds, the root does not.
    await b.database.pool.query('DELETE FROM audit.log_links');
    await b.appendRound(['thing-e'], 3);
    await b.audit.seal();
    const forged = await b.audit.verify({ kind: 'latest' });
    expect(forged.problem).toMatchObject({ kind: 'digest-mismatch', sequence: 14 });
    expect(forged.problem?.reason).toContain('the log still matches the digest of 12 events');
    expect(forged.problem?.reason).toContain('between event #12 and #15');
  });

  it('given an older stream deleted and the seal rebuilt to match, when verified, then the digest says events before its newest one were removed, not that its newest one is missing, and an earlier digest narrows where', async () => {
    const b = await freshLog();
    await b.appendRound(['thing-d'], 2);
    await b.audit.publish();
    const latest = (await b.audit.published()).latest;
    await unguardSeal(b.database);
    // thing-c's events lie among the first digest's 12: both digests are longer than the log now.
    await b.database.pool.query("DELETE FROM event_store.events WHERE stream_id = 'thing-c'");
    await b.database.pool.query('DELETE FROM audit.log_links');
    await b.audit.seal();
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.problem).toMatchObject({ kind: 'missing', sequence: null, eventId: null });
    expect(report.problem?.reason).toContain('4 of them were removed from before its newest event');
    expect(report.problem?.reason).toContain(
      `stream thing-d revision 1, still in the log at position`,
    );
    expect(report.problem?.reason).toContain('no earlier digest narrows it down');
    expect(latest?.last?.streamId).toBe('thing-d');

    // Only events after an earlier digest removed: that digest still holds, and narrows it.
    await b.close();
    bed = undefined;
    const again = await freshLog();
    await again.appendRound(['thing-d', 'thing-e'], 2);
    await again.audit.publish();
    await again.appendRound(['thing-f'], 1);
    await again.audit.publish();
    await unguardSeal(again.database);
    await again.database.pool.query("DELETE FROM event_store.events WHERE stream_id = 'thing-d'");
    await again.database.pool.query('DELETE FROM audit.log_links');
    await again.audit.seal();
    const narrowed = await again.audit.verify({ kind: 'latest' });
    expect(narrowed.problem?.reason).toContain('2 of them were removed');
    expect(narrowed.problem?.reason).toContain('the log still matches the digest of 12 events');
  });

  it('given an event rewritten and its stream re-hashed to look consistent, when verified, then the seal names it as altered', async () => {
    const b = await freshLog();
    const events = await b.store.readStream('thing-b');
    let prevHash: string | null = null;
    for (const event of events) {
      const data = event.revision === 1n ? { n: 999, note: 'rewritten' } : event.data;
      const content = eventContent(event.streamId, { ...event, data });
      const hash = chainHash(prevHash, event.revision, sha256Hex(content));
      await b.database.pool.query(
        'UPDATE event_store.events SET content = $1, prev_hash = $2, hash = $3 WHERE event_id = $4',
        [content, prevHash, hash, event.id],
      );
      prevHash = hash;
    }
    const report = await b.audit.verify({ kind: 'none' });
    expect(report.problem).toMatchObject({ kind: 'altered', streamId: 'thing-b', revision: 1 });
    expect(report.problem?.reason).toContain(
      'changed (and its stream re-hashed) after it was sealed',
    );
  });

  it('given the first event moved to the end of the log, when verified, then it is named as reordered', async () => {
    const b = await freshLog();
    const [first] = await b.store.readAll({ maxCount: 1 });
    if (!first) throw new Error('no events');
    // Its transaction id becomes the newest one's: it now sorts among the last events.
    await b.database.pool.query(
      `UPDATE event_store.events SET transaction_id = (SELECT max(transaction_id) FROM event_store.events)
        WHERE event_id = $1`,
      [first.id],
    );
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.problem).toMatchObject({
      kind: 'reordered',
      sequence: 0,
      eventId: first.id,
      streamId: first.streamId,
    });
    expect(report.problem?.reason).toContain('was moved');
  });

  it('given an event inserted into a sealed stretch of the log, when verified, then it is named as inserted', async () => {
    const b = await freshLog();
    const [, second] = await b.store.readAll({ maxCount: 2 });
    if (!second) throw new Error('no events');
    await b.store.append('thing-z', [event(100)], { expectedRevision: 'no_stream' });
    // Placed right after the second event: its transaction id, a newer position.
    await b.database.pool.query(
      `UPDATE event_store.events
          SET transaction_id = (SELECT transaction_id FROM event_store.events WHERE event_id = $1)
        WHERE stream_id = 'thing-z'`,
      [second.id],
    );
    const report = await b.audit.verify({ kind: 'none' });
    expect(report.problem?.kind).toBe('inserted');
    expect(report.problem?.streamId).toBe('thing-z');
  });

  it('given an event type column changed beside an intact content, when verified, then the event is named as altered', async () => {
    const b = await freshLog();
    const position = await positionOf(b, 'thing-c', 1);
    await b.database.pool.query(
      "UPDATE event_store.events SET event_type = 'Hidden' WHERE stream_id = 'thing-c' AND stream_revision = 1",
    );
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report.problem).toMatchObject({
      kind: 'altered',
      streamId: 'thing-c',
      revision: 1,
      position,
    });
    expect(report.problem?.reason).toContain('another event type');
  });

  it('given a digest stripped of its signature or with its time changed, when verified, then the signature is the problem', async () => {
    const b = await freshLog();
    const latest = (await b.audit.published()).latest;
    if (!latest) throw new Error('nothing published');
    const unsigned = { ...latest };
    delete unsigned.publicKey;
    delete unsigned.signature;
    const unsignedReport = await b.audit.verify({
      kind: 'given',
      digest: unsigned,
      source: 'test',
    });
    expect(unsignedReport.problem?.kind).toBe('signature');
    expect(unsignedReport.problem?.reason).toContain('not signed');
    const changed = parseDigest(formatDigest({ ...latest, at: '2030-01-01T00:00:00.000Z' }));
    const changedReport = await b.audit.verify({ kind: 'given', digest: changed, source: 'test' });
    expect(changedReport.problem?.reason).toContain('signature does not hold');
  });

  it('given a digest older than the log, when verified, then the newer events are checked by their chains and the seal', async () => {
    const b = await freshLog();
    await b.appendRound(STREAMS, 1);
    const report = await b.audit.verify({ kind: 'latest' });
    expect(report).toMatchObject({ ok: true, events: 15, sealed: 12 });
    expect(report.digest?.events).toBe(12);
  });

  it('given no digest published, when verified, then the chains are checked and the report says what cannot be seen', async () => {
    bed = await openAuditBed('audit_verify');
    await bed.appendRound(STREAMS, 2);
    const report = await bed.audit.verify({ kind: 'latest' });
    expect(report).toMatchObject({ ok: true, events: 6, sealed: 0, digest: null });
    expect(report.limits[0]).toContain('no digest');
  });

  it('given an empty log, when digested and verified, then the digest has no root and holds', async () => {
    bed = await openAuditBed('audit_verify');
    const digest = await bed.audit.currentDigest();
    expect(digest).toMatchObject({ events: 0, root: null, position: null, last: null });
    const report = await bed.audit.verify({ kind: 'given', digest, source: 'test' });
    expect(report).toMatchObject({ ok: true, events: 0 });
  });

  it('given the seal, when something tries to change it, then the database refuses', async () => {
    const b = await freshLog();
    await expect(b.database.pool.query('DELETE FROM audit.log_links')).rejects.toThrow(
      /append-only/,
    );
    await expect(
      b.database.pool.query("UPDATE audit.log_links SET log_hash = 'x'"),
    ).rejects.toThrow(/append-only/);
    await expect(b.database.pool.query('TRUNCATE audit.log_links')).rejects.toThrow(/append-only/);
  });
});
