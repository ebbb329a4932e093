import type pg from 'pg';
import type { SessionClient } from './queryable.js';

/**
 * COPY through node-postgres: the protocol's copy-in and copy-out, as pg-copy-streams does
 * them (pg accepts any object with `submit` as a query and routes the protocol messages to
 * it). Server Postgres only: PGlite's pg shim does not speak the copy sub-protocol.
 */

interface CopyConnection extends pg.Connection {
  endCopyFrom(): void;
}

/** The protocol's CopyData message byte ('d'). */
const COPY_DATA = 0x64;

/**
 * Sends one CopyData message. Written to the socket as header and chunk, as pg-copy-streams
 * does: pg's own sendCopyFromChunk first copies the chunk into a new buffer, which for a
 * bulk load is a second pass over every byte.
 */
const sendCopyData = (connection: CopyConnection, chunk: Buffer): void => {
  const header = Buffer.allocUnsafe(5);
  header[0] = COPY_DATA;
  header.writeInt32BE(chunk.length + 4, 1);
  connection.stream.write(header);
  connection.stream.write(chunk);
};

/** One COPY statement on a checked-out client; collects what the server sends back. */
class CopyQuery implements pg.Submittable {
  readonly done: Promise<Buffer[]>;
  private readonly received: Buffer[] = [];
  private settle: { resolve(chunks: Buffer[]): void; reject(error: unknown): void } | undefined;

  constructor(
    private readonly text: string,
    private readonly send: readonly (Buffer | string)[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  submit(connection: pg.Connection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    for (const chunk of this.send) {
      sendCopyData(connection, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    }
    connection.endCopyFrom();
  }

  handleCopyData(message: { chunk: Buffer }): void {
    // The parser reuses its buffer: keep a copy.
    this.received.push(Buffer.from(message.chunk));
  }

  // pg stops routing messages to a query that failed (its ReadyForQuery goes to no one), so
  // an error settles here; pg still holds later queries until the server is ready again.
  handleError(error: unknown): void {
    this.settle?.reject(error);
  }

  handleReadyForQuery(): void {
    this.settle?.resolve(this.received);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
}

/** `COPY … FROM STDIN` with `chunks` as the data (text format unless the statement says). */
export const copyFrom = async (
  client: SessionClient,
  statement: string,
  chunks: readonly (Buffer | string)[],
): Promise<void> => {
  await client.query(new CopyQuery(statement, chunks)).done;
};

/** `COPY … TO STDOUT`: what the server sent, as it sent it. */
export const copyTo = async (client: SessionClient, statement: string): Promise<Buffer[]> =>
  client.query(new CopyQuery(statement, [])).done;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const escapeText = (text: string): string =>
  SPECIAL.test(text) ? text.replace(SPECIALS, (char) => ESCAPES[char] ?? char) : text;

/**
 * `escapeText` of JSON text: JSON escapes newlines, returns and tabs inside its strings, so
 * only backslashes are left to double, found by a plain search rather than a regex over
 * every character of documents that are often kilobytes long.
 */
const escapeJson = (json: string | undefined): string => {
  // A function or a symbol has no JSON text: refused rather than written as some column value.
  if (json === undefined) throw new TypeError('a COPY value has no JSON representation');
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
};

/**
 * One value in COPY's text format: null as `\N`, strings escaped, numbers and bigints as
 * decimal text, booleans as t/f, dates as ISO-8601, other objects as JSON (for json/jsonb
 * columns, the same text a JSON parameter would carry).
 */
export const copyValue = (value: unknown): string => {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return escapeText(value);
    case 'number':
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 't' : 'f';
    default:
      if (value instanceof Date) return value.toISOString();
      return escapeJson(JSON.stringify(value));
  }
};

/** Bytes per chunk of `CopyText`: a big load never builds one huge string. */
const CHUNK_BYTES = 1 << 20;

const NEWLINE = 0x0a;

/**
 * Rows in COPY's text format, one line each, values in `columns` order, written straight
 * into ~1 MB buffers, each line encoded as it is added.
 */
export class CopyText {
  private readonly done: Buffer[] = [];
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private count = 0;
  /** One row's values as text, reused from row to row. */
  private readonly texts: string[];

  constructor(readonly columns: readonly string[]) {
    this.texts = new Array<string>(columns.length).fill('');
  }

  get rows(): number {
    return this.count;
  }

  /** Adds a row: one value per column, in order. */
  add(values: readonly unknown[]): void {
    if (values.length !== this.columns.length) {
      throw new RangeError(`a row of ${values.length} values for ${this.columns.length} columns`);
    }
    const { texts } = this;
    for (let i = 0; i < texts.length; i += 1) texts[i] = copyValue(values[i]);
    this.addLine();
  }

  /** Adds a row given as an object: its values of `columns`, in order. */
  addRow(row: object): void {
    const { columns, texts } = this;
    const values = row as Readonly<Record<string, unknown>>;
    for (let i = 0; i < texts.length; i += 1) texts[i] = copyValue(values[columns[i] as string]);
    this.addLine();
  }

  /** Writes `texts` as one line: tab-separated, newline-terminated. */
  private addLine(): void {
    // One flat string and one write per line: a line grown by `+=` is a rope of small
    // pieces to flatten and collect, and a write per value costs more calls than it saves.
    const line = this.texts.join('\t');
    // UTF-8 takes at most 3 bytes per UTF-16 unit; then the newline.
    const most = line.length * 3 + 1;
    if (this.used + most > this.buffer.length) {
      this.seal();
      if (most > this.buffer.length) this.buffer = Buffer.allocUnsafe(most);
    }
    this.used += this.buffer.write(line, this.used);
    this.buffer[this.used++] = NEWLINE;
    this.count += 1;
  }

  /** The rows so far, in chunks. */
  chunks(): Buffer[] {
    this.seal();
    return [...this.done];
  }

  private seal(): void {
    if (this.used === 0) return;
    const filled = this.buffer.subarray(0, this.used);
    // A mostly empty buffer is copied out rather than kept whole behind a small view.
    this.done.push(this.used < this.buffer.length / 4 ? Buffer.from(filled) : filled);
    this.buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }
}
