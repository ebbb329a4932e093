/**
 * What the request handlers share with the double: its log, faults and options, and its
 * bookkeeping (calls, violations, live subscriptions).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Metadata, ServerWritableStream } from '@grpc/grpc-js';
import type { RpcError } from './codec.js';
import type { FaultController } from './faults.js';
import type { EsdbLog, EsdbLogOptions, ProposedEvent } from './log.js';
import type { ReadReq, ReadResp } from './proto.js';

export interface EsdbDoubleOptions {
  /** Address to listen on. Default 127.0.0.1. */
  readonly host?: string;
  /**
   * What `ServerFeatures.GetSupportedMethods` answers. `current` (default): every method the
   * double serves, as a 24.10 node lists them, so the client appends with `BatchAppend`;
   * `no-batch-append`: the list without `BatchAppend` (the client then uses `Append`); `none`:
   * UNIMPLEMENTED, as servers before 21.10 answer (the client assumes an unknown version and
   * uses `Append`).
   */
  readonly features?: 'current' | 'no-batch-append' | 'none';
  /** The version ServerFeatures reports. Default 24.10.0. */
  readonly serverVersion?: string;
  /** Send `caughtUp` when a subscription goes live (servers 23.10 and later). Default true. */
  readonly caughtUp?: boolean;
  /** The server's write timeout (its `--write-timeout-ms`, 2000 by default). */
  readonly writeTimeoutMs?: number;
  /** The largest append, in bytes of event types, data and metadata (`--max-append-size`). */
  readonly maxAppendSize?: number;
  /** Serve TLS with this key and certificate (PEM); default insecure (`--insecure`). */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** The log to serve (to share one across doubles), or options for a fresh one. */
  readonly log?: EsdbLog | EsdbLogOptions;
}

export type ViolationKind =
  /** The request breaks the API: a required field is missing, a combination is invalid. */
  | 'request'
  /** The call's metadata is not what the client must send (connection name, credentials). */
  | 'metadata'
  /** The double itself failed. */
  | 'internal';

export interface Violation {
  /** `Service.Method`, e.g. `Streams.Read`. */
  readonly rpc: string;
  readonly kind: ViolationKind;
  readonly reason: string;
}

export interface LiveSubscription {
  readonly call: ServerWritableStream<ReadReq, ReadResp>;
  readonly abort: AbortController;
}

export const DEFAULT_WRITE_TIMEOUT_MS = 2000;
/** EventStoreDB's default `--max-append-size`: 1 MiB. */
export const DEFAULT_MAX_APPEND_SIZE = 1_048_576;

const encoder = new TextEncoder();

export const sizeOf = (event: ProposedEvent): number =>
  encoder.encode(event.type).length + event.data.length + event.metadata.length;

/** Writes one message, waiting for the transport when its buffer is full. */
export const send = <T>(call: ServerWritableStream<ReadReq, T>, message: T): Promise<boolean> => {
  if (call.cancelled || call.writableEnded || call.destroyed) return Promise.resolve(false);
  if (call.write(message)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      call.off('drain', drained);
      call.off('cancelled', gone);
      call.off('close', gone);
      resolve(ok);
    };
    const drained = done(true);
    const gone = done(false);
    call.once('drain', drained);
    call.once('cancelled', gone);
    call.once('close', gone);
  });
};

/** Resolves after `ms`, or early when the call is cancelled. */
export const hold = async (
  call: { cancelled: boolean; once(event: 'cancelled', f: () => void): unknown },
  ms: number,
) => {
  if (ms <= 0 || call.cancelled) return;
  const controller = new AbortController();
  call.once('cancelled', () => {
    controller.abort();
  });
  await sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);
};

/**
 * A local EventStoreDB speaking its gRPC API, for tests. See README.md. State lives in `log`
 * and survives `restart()`.
 */
export interface DoubleContext {
  readonly log: EsdbLog;
  readonly faults: FaultController;
  readonly options: EsdbDoubleOptions;
  /** Subscriptions being served, so that a stop or a drop can end them. */
  readonly live: Set<LiveSubscription>;
  /** Counts a call and checks its metadata. */
  enter(rpc: string, metadata: Metadata): void;
  violation(rpc: string, kind: ViolationKind, reason: string): void;
  /** The status to answer a failed call with (a Problem is a request violation). */
  failure(rpc: string, error: unknown): RpcError;
}
