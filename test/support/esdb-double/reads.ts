/** Streams.Read: stream reads, `$all` reads and catch-up subscriptions. */
import { randomUUID } from 'node:crypto';
import { status as Status, type ServerWritableStream } from '@grpc/grpc-js';
import {
  invalidPositionError,
  readEvent,
  rpcError,
  streamDeletedError,
  toIdentifier,
  type RpcError,
} from './codec.js';
import { hold, send, type DoubleContext, type LiveSubscription } from './context.js';
import type { ReadTarget as FaultTarget } from './faults.js';
import { matchesFilter, type LogRecord } from './log.js';
import { streams, type ReadReq, type ReadResp } from './proto.js';
import { parseRead, type ParsedRead } from './requests.js';

export class ReadHandlers {
  constructor(private readonly ctx: DoubleContext) {}

  /** Runs a read; a Problem answers INVALID_ARGUMENT, anything else INTERNAL. */
  async serve(call: ServerWritableStream<ReadReq, ReadResp>): Promise<void> {
    const rpc = 'Streams.Read';
    this.ctx.enter(rpc, call.metadata);
    try {
      await this.read(call);
    } catch (error) {
      call.emit('error', this.ctx.failure(rpc, error));
    }
  }

  private async read(call: ServerWritableStream<ReadReq, ReadResp>): Promise<void> {
    const read = parseRead(call.request);
    const on: FaultTarget =
      read.count === null
        ? 'subscription'
        : read.target.kind === 'stream'
          ? 'read-stream'
          : 'read-all';
    const fault = this.ctx.faults.take({
      on,
      ...(read.target.kind === 'stream' ? { stream: read.target.streamId } : {}),
    });
    if (fault?.kind === 'slow') await hold(call, fault.delayMs ?? 1000);
    if (fault?.kind === 'unavailable') {
      call.emit('error', rpcError(Status.UNAVAILABLE, 'Server Is Not Ready'));
      return;
    }
    if (read.count === null) {
      await this.subscribe(
        call,
        read,
        fault?.kind === 'drop' ? (fault.afterEvents ?? 0) : undefined,
      );
      return;
    }
    const records = this.readRecords(read, read.count);
    if (records instanceof Error) {
      call.emit('error', (records as Error & { status: RpcError }).status);
      return;
    }
    if (records === 'not-found') {
      const target = read.target as { streamId: string };
      await send(
        call,
        new streams.ReadResp().setStreamNotFound(
          new streams.ReadResp.StreamNotFound().setStreamIdentifier(toIdentifier(target.streamId)),
        ),
      );
    } else {
      for (const record of records) {
        if (!(await send(call, this.toReadResp(record, read)))) return;
      }
    }
    call.end();
  }

  private readRecords(read: ParsedRead, count: bigint): readonly LogRecord[] | 'not-found' | Error {
    const failed = (status: RpcError): Error =>
      Object.assign(new Error(status.details), { status });
    const { target, direction } = read;
    if (target.kind === 'stream') {
      const result = this.ctx.log.readStream(target.streamId, {
        direction,
        from: target.from,
        count,
      });
      if (result.kind === 'deleted') return failed(streamDeletedError(target.streamId));
      return result.kind === 'not-found' ? 'not-found' : result.records;
    }
    if (
      target.invalidPosition ||
      (typeof target.from === 'bigint' && !this.ctx.log.isValidPosition(target.from))
    ) {
      return failed(invalidPositionError());
    }
    return this.ctx.log.readAll({
      direction,
      from: target.from,
      count,
      ...(read.filter ? { filter: read.filter.filter } : {}),
    });
  }

  private toReadResp(record: LogRecord, read: ParsedRead): ReadResp {
    return readEvent(
      record,
      read.uuidAsString,
      read.resolveLinks ? this.resolveLink(record) : undefined,
    );
  }

  /** A `$>` link's data is `revision@stream`: the event it points to, when it still exists. */
  private resolveLink(record: LogRecord): LogRecord | undefined {
    if (record.type !== '$>') return undefined;
    const text = new TextDecoder().decode(record.data);
    const at = text.indexOf('@');
    if (at < 1) return undefined;
    const result = this.ctx.log.readStream(text.slice(at + 1), {
      direction: 'forwards',
      from: BigInt(text.slice(0, at)),
      count: 1n,
    });
    return result.kind === 'events' ? result.records[0] : undefined;
  }

  /**
   * A catch-up subscription (https://developers.eventstore.com/clients/grpc/subscriptions.html):
   * a confirmation, then every event after the (exclusive) start, then `caughtUp` and live
   * events. With a server-side filter, a checkpoint is sent after every `window × multiplier`
   * events considered ("Checkpointing": every 32 events by default) and when the catch-up
   * reaches the end; filtered-out events are never sent.
   */
  private async subscribe(
    call: ServerWritableStream<ReadReq, ReadResp>,
    read: ParsedRead,
    dropAfter: number | undefined,
  ): Promise<void> {
    const { target } = read;
    let index: number;
    let accepts: (record: LogRecord) => boolean;
    if (target.kind === 'all') {
      const from = target.from;
      if (
        target.invalidPosition ||
        (typeof from === 'bigint' && !this.ctx.log.isValidPosition(from))
      ) {
        call.emit('error', invalidPositionError());
        return;
      }
      // Exclusive: a subscription from a position starts with the next event.
      index =
        from === 'start'
          ? 0
          : from === 'end'
            ? this.ctx.log.size
            : this.ctx.log.indexFrom(from + 1n);
      accepts = () => true;
    } else {
      const { streamId, from } = target;
      if (this.ctx.log.isTombstoned(streamId)) {
        call.emit('error', streamDeletedError(streamId));
        return;
      }
      index = from === 'end' ? this.ctx.log.size : 0;
      accepts = (record) =>
        record.streamId === streamId && (typeof from !== 'bigint' || record.revision > from);
    }
    const subscription: LiveSubscription = { call, abort: new AbortController() };
    this.ctx.live.add(subscription);
    const { signal } = subscription.abort;
    call.once('cancelled', () => {
      subscription.abort.abort();
    });
    try {
      const confirmation = new streams.ReadResp.SubscriptionConfirmation().setSubscriptionId(
        randomUUID(),
      );
      if (!(await send(call, new streams.ReadResp().setConfirmation(confirmation)))) return;
      let considered = 0;
      let sent = 0;
      let live = false;
      let lastSeen: LogRecord | undefined =
        index > 0 ? this.ctx.log.recordAt(index - 1) : undefined;
      const checkpoint = (record: LogRecord | undefined) =>
        record
          ? send(
              call,
              new streams.ReadResp().setCheckpoint(
                new streams.ReadResp.Checkpoint()
                  .setCommitPosition(record.position.toString())
                  .setPreparePosition(record.position.toString()),
              ),
            )
          : Promise.resolve(true);
      while (!signal.aborted) {
        const record = this.ctx.log.recordAt(index);
        if (!record) {
          if (!live) {
            live = true;
            if (read.filter && !(await checkpoint(lastSeen))) return;
            if (
              (this.ctx.options.caughtUp ?? true) &&
              !(await send(
                call,
                new streams.ReadResp().setCaughtUp(new streams.ReadResp.CaughtUp()),
              ))
            )
              return;
          }
          await this.ctx.log.waitBeyond(index, signal);
          continue;
        }
        index += 1;
        lastSeen = record;
        if (!accepts(record)) continue;
        considered += 1;
        if (!read.filter || matchesFilter(read.filter.filter, record)) {
          if (!(await send(call, this.toReadResp(record, read)))) return;
          sent += 1;
          if (dropAfter !== undefined && sent >= dropAfter) {
            call.emit('error', rpcError(Status.UNAVAILABLE, 'Subscription dropped by the server'));
            return;
          }
        }
        if (read.filter && considered >= read.filter.checkpointEvery) {
          considered = 0;
          if (!(await checkpoint(record))) return;
        }
      }
    } finally {
      this.ctx.live.delete(subscription);
    }
  }
}
