/**
 * Log records ↔ the messages of EventStoreDB's gRPC API, and the errors the server answers
 * with (status code, message and the `exception` trailer the client decodes).
 */
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js';
import type { ExpectedState, LogRecord } from './log.js';
import { anyPb, code, emptyPb, shared, status as statusPb, streams, type Uuid } from './proto.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID as the client sends it (string, or the structured 64+64 bits); undefined if invalid. */
export const parseUuid = (uuid: Uuid | undefined): string | undefined => {
  if (!uuid) return undefined;
  if (uuid.hasString()) {
    const text = uuid.getString().toLowerCase();
    return UUID_PATTERN.test(text) ? text : undefined;
  }
  const structured = uuid.getStructured();
  if (!structured) return undefined;
  const bits = (value: string): string =>
    BigInt.asUintN(64, BigInt(value)).toString(16).padStart(16, '0');
  const hex =
    bits(structured.getMostSignificantBits()) + bits(structured.getLeastSignificantBits());
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** A UUID message: a string when the reader asked for strings, else the structured form. */
export const toUuid = (id: string, asString: boolean): Uuid => {
  const uuid = new shared.UUID();
  if (asString) return uuid.setString(id);
  const hex = id.replaceAll('-', '');
  const signed = (part: string): string => BigInt.asIntN(64, BigInt(`0x${part}`)).toString();
  const structured = new shared.UUID.Structured()
    .setMostSignificantBits(signed(hex.slice(0, 16)))
    .setLeastSignificantBits(signed(hex.slice(16)));
  return uuid.setStructured(structured);
};

const decoder = new TextDecoder('utf-8', { fatal: false });

export const streamNameOf = (
  identifier: { getStreamName_asU8(): Uint8Array } | undefined,
): string | undefined => (identifier ? decoder.decode(identifier.getStreamName_asU8()) : undefined);

export const toIdentifier = (name: string): InstanceType<typeof shared.StreamIdentifier> =>
  new shared.StreamIdentifier().setStreamName(new TextEncoder().encode(name));

export const recordedEvent = (
  record: LogRecord,
  uuidAsString: boolean,
): InstanceType<typeof streams.ReadResp.ReadEvent.RecordedEvent> => {
  const message = new streams.ReadResp.ReadEvent.RecordedEvent()
    .setId(toUuid(record.id, uuidAsString))
    .setStreamIdentifier(toIdentifier(record.streamId))
    .setStreamRevision(record.revision.toString())
    .setPreparePosition(record.position.toString())
    .setCommitPosition(record.position.toString())
    .setData(record.data)
    .setCustomMetadata(record.metadata);
  const map = message.getMetadataMap();
  map.set('type', record.type);
  map.set('created', record.created.toString());
  map.set('content-type', record.contentType);
  return message;
};

/** One event of a read: the record, or with `link` the link and the event it points to. */
export const readEvent = (
  record: LogRecord,
  uuidAsString: boolean,
  resolved?: LogRecord,
): InstanceType<typeof streams.ReadResp> => {
  const event = new streams.ReadResp.ReadEvent()
    .setEvent(recordedEvent(resolved ?? record, uuidAsString))
    .setCommitPosition(record.position.toString());
  if (resolved) event.setLink(recordedEvent(record, uuidAsString));
  return new streams.ReadResp().setEvent(event);
};

// ---------------------------------------------------------------------------------------------
// Errors, as the server's RpcExceptions build them

/** A gRPC status to end a call with: code, message and trailers. */
export type RpcError = Pick<StatusObject, 'code' | 'details' | 'metadata'>;

export const rpcError = (
  code: Status,
  details: string,
  trailers: Record<string, string> = {},
): RpcError => {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
  return { code, details, metadata };
};

export const streamDeletedError = (streamName: string): RpcError =>
  rpcError(Status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': streamName,
  });

export const wrongExpectedVersionError = (
  streamName: string,
  expected: bigint,
  actual: bigint | null,
): RpcError =>
  rpcError(
    Status.FAILED_PRECONDITION,
    `Append failed due to WrongExpectedVersion. Stream: ${streamName}, Expected version: ${expected}, Actual version: ${actual ?? -1}`,
    {
      exception: 'wrong-expected-version',
      'stream-name': streamName,
      'expected-version': expected.toString(),
      'actual-version': actual === null ? '' : actual.toString(),
    },
  );

export const maxAppendSizeError = (maxAppendSize: number): RpcError =>
  rpcError(Status.INVALID_ARGUMENT, `Maximum Append Size of ${maxAppendSize} Exceeded.`, {
    exception: 'maximum-append-size-exceeded',
    'maximum-append-size': String(maxAppendSize),
  });

export const invalidPositionError = (): RpcError =>
  rpcError(Status.INVALID_ARGUMENT, 'Trying to read from an invalid position.');

// BatchAppend answers failures in-band: a google.rpc-style Status with a typed detail.

const packed = (message: { serializeBinary(): Uint8Array }, typeName: string) => {
  const any = new anyPb.Any();
  any.pack(message.serializeBinary(), typeName);
  return any;
};

const CODE = code.Code;

const batchStatus = (
  code: InstanceType<typeof statusPb.Status>['getCode'] extends () => infer C ? C : never,
  message: string,
  detail: { serializeBinary(): Uint8Array },
  typeName: string,
): InstanceType<typeof statusPb.Status> =>
  new statusPb.Status().setCode(code).setMessage(message).setDetails(packed(detail, typeName));

/** Code.AlreadyExists (6) with `event_store.client.WrongExpectedVersion`. */
export const batchWrongExpectedVersion = (current: bigint | null, expected: ExpectedState) => {
  const detail = new shared.WrongExpectedVersion();
  if (current === null) detail.setCurrentNoStream(new emptyPb.Empty());
  else detail.setCurrentStreamRevision(current.toString());
  if (expected.kind === 'any') detail.setExpectedAny(new emptyPb.Empty());
  else if (expected.kind === 'stream_exists') detail.setExpectedStreamExists(new emptyPb.Empty());
  else if (expected.kind === 'no_stream') detail.setExpectedNoStream(new emptyPb.Empty());
  else detail.setExpectedStreamPosition(expected.revision.toString());
  return batchStatus(
    CODE.ALREADY_EXISTS,
    'WrongExpectedVersion',
    detail,
    'event_store.client.WrongExpectedVersion',
  );
};

/** Code.NotFound (5) with `event_store.client.StreamDeleted`. */
export const batchStreamDeleted = (streamName: string) =>
  batchStatus(
    CODE.NOT_FOUND,
    'StreamDeleted',
    new shared.StreamDeleted().setStreamIdentifier(toIdentifier(streamName)),
    'event_store.client.StreamDeleted',
  );

/** Code.DeadlineExceeded (4) with `event_store.client.Timeout`. */
export const batchTimeout = () =>
  batchStatus(
    CODE.DEADLINE_EXCEEDED,
    'Timeout',
    new shared.Timeout(),
    'event_store.client.Timeout',
  );

/** Code.InvalidArgument (3) with `event_store.client.MaximumAppendSizeExceeded`. */
export const batchMaxAppendSize = (maxAppendSize: number) =>
  batchStatus(
    CODE.INVALID_ARGUMENT,
    'MaximumAppendSizeExceeded',
    new shared.MaximumAppendSizeExceeded().setMaxappendsize(maxAppendSize),
    'event_store.client.MaximumAppendSizeExceeded',
  );

/** Code.InvalidArgument (3) with `event_store.client.BadRequest`. */
export const batchBadRequest = (message: string) =>
  batchStatus(
    CODE.INVALID_ARGUMENT,
    'BadRequest',
    new shared.BadRequest().setMessage(message),
    'event_store.client.BadRequest',
  );
