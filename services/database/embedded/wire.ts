/**
 * Just enough of the Postgres wire protocol (version 3) to share one PGlite session between
 * connections: message framing, the transaction status of ReadyForQuery, CommandComplete tags
 * and the few messages the owner writes itself. Every message but the first of a connection
 * is a type byte and an int32 length that counts itself; the startup packets have no type byte.
 */

export const PROTOCOL_3 = 196_608;
export const SSL_REQUEST = 80_877_103;
export const GSSENC_REQUEST = 80_877_104;
export const CANCEL_REQUEST = 80_877_102;

/** ReadyForQuery's status: idle, in a transaction block, in a failed transaction block. */
export type TransactionStatus = 'I' | 'T' | 'E';

const READY_FOR_QUERY = 0x5a; // 'Z'
const COMMAND_COMPLETE = 0x43; // 'C'
const TERMINATE = 0x58; // 'X'

/** A startup-phase packet (no type byte), or undefined until `buffer` holds all of it. */
export const readStartupPacket = (
  buffer: Buffer,
): { readonly code: number; readonly packet: Buffer } | undefined => {
  if (buffer.length < 8) return undefined;
  const length = buffer.readInt32BE(0);
  if (length < 8 || length > 10_000) return { code: -1, packet: buffer.subarray(0, 8) };
  if (buffer.length < length) return undefined;
  return { code: buffer.readInt32BE(4), packet: buffer.subarray(0, length) };
};

/**
 * Splits the complete typed messages off the front of `buffer`: `messages` is their bytes,
 * `rest` the start of a message still arriving. Reading stops at a Terminate (`terminate`:
 * the client is leaving; nothing after it counts) and at a length below 4, which cannot be a
 * message (`invalid`).
 */
export const splitMessages = (
  buffer: Buffer,
): { messages: Buffer; rest: Buffer; terminate: boolean; invalid: boolean } => {
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readInt32BE(offset + 1);
    const invalid = length < 4;
    const terminate = buffer[offset] === TERMINATE;
    if (invalid || terminate) {
      return { messages: buffer.subarray(0, offset), rest: Buffer.alloc(0), terminate, invalid };
    }
    if (buffer.length - offset < 1 + length) break;
    offset += 1 + length;
  }
  return {
    messages: buffer.subarray(0, offset),
    rest: buffer.subarray(offset),
    terminate: false,
    invalid: false,
  };
};

/** Walks the backend messages in `output`, calling `visit` with each type and body. */
const eachBackendMessage = (
  output: Uint8Array,
  visit: (type: number, body: Buffer) => void,
): void => {
  const buffer = Buffer.from(output.buffer, output.byteOffset, output.byteLength);
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readInt32BE(offset + 1);
    if (length < 4 || buffer.length - offset < 1 + length) return;
    visit(buffer[offset] ?? 0, buffer.subarray(offset + 5, offset + 1 + length));
    offset += 1 + length;
  }
};

/** The status of the last ReadyForQuery in `output`; undefined when it has none. */
export const lastTransactionStatus = (output: Uint8Array): TransactionStatus | undefined => {
  let status: TransactionStatus | undefined;
  eachBackendMessage(output, (type, body) => {
    if (type === READY_FOR_QUERY) status = String.fromCharCode(body[0] ?? 0) as TransactionStatus;
  });
  return status;
};

/** Whether `output` reports a completed INSERT, UPDATE, DELETE, MERGE or COPY. */
export const reportsWrites = (output: Uint8Array): boolean => {
  let wrote = false;
  eachBackendMessage(output, (type, body) => {
    if (type === COMMAND_COMPLETE && /^(INSERT|UPDATE|DELETE|MERGE|COPY)\b/.test(body.toString()))
      wrote = true;
  });
  return wrote;
};

/** Keeps only the ParameterStatus ('S') and BackendKeyData ('K') messages of a startup reply. */
export const startupParameters = (output: Uint8Array): Buffer => {
  const kept: Buffer[] = [];
  const buffer = Buffer.from(output.buffer, output.byteOffset, output.byteLength);
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readInt32BE(offset + 1);
    if (length < 4 || buffer.length - offset < 1 + length) break;
    const type = buffer[offset];
    if (type === 0x53 || type === 0x4b) kept.push(buffer.subarray(offset, offset + 1 + length));
    offset += 1 + length;
  }
  return Buffer.concat(kept);
};

const typed = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

export const startupMessage = (parameters: Readonly<Record<string, string>>): Buffer => {
  const body = Buffer.from(
    `${Object.entries(parameters)
      .map(([key, value]) => `${key}\0${value}\0`)
      .join('')}\0`,
  );
  const packet = Buffer.alloc(8 + body.length);
  packet.writeInt32BE(packet.length, 0);
  packet.writeInt32BE(PROTOCOL_3, 4);
  body.copy(packet, 8);
  return packet;
};

export const authenticationOk = (): Buffer => typed('R', Buffer.from([0, 0, 0, 0]));

export const readyForQuery = (status: TransactionStatus): Buffer =>
  typed('Z', Buffer.from(status, 'latin1'));

export const simpleQuery = (sql: string): Buffer => typed('Q', Buffer.from(`${sql}\0`));

export const sync = (): Buffer => typed('S', Buffer.alloc(0));

/** An ErrorResponse: severity (ERROR or FATAL), SQLSTATE and message. */
export const errorResponse = (severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer =>
  typed('E', Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`));
