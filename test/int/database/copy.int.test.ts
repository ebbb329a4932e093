import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFrom, copyTo, CopyText } from '../../../services/database/copy.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * COPY's text format as the bulk rebuild writes it: given values with every character COPY
 * escapes, multi-byte text, nulls, numbers and JSON, when written by COPY FROM STDIN in many
 * chunks, then reading them back gives exactly those values.
 */
describe('COPY through node-postgres', () => {
  let database: ThrowawayDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createThrowawayDatabase('copy');
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      'CREATE TABLE t (id integer PRIMARY KEY, label text, doc jsonb, at timestamptz, big bigint)',
    );
  });

  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('given tricky values over many chunks, when copied in, then they read back unchanged', async () => {
    const labels = [
      'plain',
      'tab\there',
      'new\nline',
      'carriage\rreturn',
      'back\\slash \\N not null',
      'Grüße ✓ 𝄞 emoji 👩‍💻',
      '',
      null,
    ];
    const text = new CopyText(['id', 'label', 'doc', 'at', 'big']);
    const rows = 30_000; // several ~1 MB chunks
    for (let id = 0; id < rows; id += 1) {
      const label = labels[id % labels.length] ?? null;
      text.add([
        id,
        label === null ? null : `${label} ${'x'.repeat(id % 50)}`,
        { id, label, nested: ['a\tb', { q: '"quoted" \\ path' }] },
        new Date(Date.UTC(2026, 0, 1) + id * 1000),
        BigInt(id) * 10_000_000_000n,
      ]);
    }
    const chunks = text.chunks();
    expect(chunks.length).toBeGreaterThan(1);
    await copyFrom(client, 'COPY t (id, label, doc, at, big) FROM STDIN', chunks);

    const { rows: back } = await client.query<{
      id: number;
      label: string | null;
      doc: unknown;
      at: Date;
      big: string;
    }>('SELECT id, label, doc, at, big FROM t ORDER BY id');
    expect(back).toHaveLength(rows);
    for (const id of [0, 1, 2, 3, 4, 5, 6, 7, 29_999]) {
      const label = labels[id % labels.length] ?? null;
      expect(back[id]).toEqual({
        id,
        label: label === null ? null : `${label} ${'x'.repeat(id % 50)}`,
        doc: { id, label, nested: ['a\tb', { q: '"quoted" \\ path' }] },
        at: new Date(Date.UTC(2026, 0, 1) + id * 1000),
        big: (BigInt(id) * 10_000_000_000n).toString(),
      });
    }
    // And out again: COPY TO gives the same text it was given.
    const out = Buffer.concat(
      await copyTo(client, 'COPY (SELECT id, label FROM t WHERE id < 8 ORDER BY id) TO STDOUT'),
    );
    expect(out.toString('utf8').split('\n')[1]).toBe('1\ttab\\there ' + 'x');
  });

  it('given a row the table refuses, when copied in, then the error is the server own and the table is unchanged', async () => {
    const text = new CopyText(['id', 'label', 'doc', 'at', 'big']);
    text.add([1_000_000, 'ok', {}, new Date(), 1]);
    text.add([0, 'duplicate key', {}, new Date(), 1]);
    await expect(
      copyFrom(client, 'COPY t (id, label, doc, at, big) FROM STDIN', text.chunks()),
    ).rejects.toThrow(/duplicate key value violates unique constraint/);
    const { rows } = await client.query('SELECT 1 FROM t WHERE id = 1000000');
    expect(rows).toEqual([]);
    // The connection is usable afterwards.
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('given a row with the wrong number of values, then CopyText refuses it', () => {
    const text = new CopyText(['a', 'b']);
    expect(() => {
      text.add([1]);
    }).toThrow(/a row of 1 values for 2 columns/);
  });
});
