/** Streams.Append, Streams.BatchAppend, Streams.Delete and Streams.Tombstone. */
import {
  status as Status,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerReadableStream,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import {
  batchBadRequest,
  batchMaxAppendSize,
  batchStreamDeleted,
  batchTimeout,
  batchWrongExpectedVersion,
  maxAppendSizeError,
  rpcError,
  streamDeletedError,
  toIdentifier,
  wrongExpectedVersionError,
  type RpcError,
} from './codec.js';
import {
  DEFAULT_MAX_APPEND_SIZE,
  DEFAULT_WRITE_TIMEOUT_MS,
  hold,
  sizeOf,
  type DoubleContext,
} from './context.js';
import type { FaultRule } from './faults.js';
import type { ProposedEvent, WriteOutcome } from './log.js';
import {
  emptyPb,
  shared,
  streams,
  type AppendReq,
  type AppendResp,
  type BatchAppendReq,
  type BatchAppendResp,
  type DeleteReq,
  type DeleteResp,
  type TombstoneReq,
  type TombstoneResp,
} from './proto.js';
import {
  parseAppendOptions,
  parseBatchOptions,
  parseDeletion,
  parseProposed,
  Problem,
  type AppendTarget,
  type BatchTarget,
} from './requests.js';

export class WriteHandlers {
  constructor(private readonly ctx: DoubleContext) {}

  // Streams.Append

  append(call: ServerReadableStream<AppendReq, AppendResp>, done: sendUnaryData<AppendResp>): void {
    const rpc = 'Streams.Append';
    this.ctx.enter(rpc, call.metadata);
    const messages: AppendReq[] = [];
    call.on('data', (message: AppendReq) => messages.push(message));
    call.on('error', () => undefined);
    call.on('end', () => {
      void (async () => {
        try {
          const [head, ...rest] = messages;
          if (!head) throw new Problem('Append: the call ended before its options');
          const target = parseAppendOptions(head);
          const events = rest.map((message, index) => {
            if (message.getContentCase() !== streams.AppendReq.ContentCase.PROPOSED_MESSAGE) {
              throw new Problem(
                `Append: message ${index + 2} carries options again instead of a proposed message`,
              );
            }
            return parseProposed(message.getProposedMessage()!, `Append: event ${index + 1}`);
          });
          const maxAppendSize = this.ctx.options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE;
          if (events.reduce((sum, event) => sum + sizeOf(event), 0) > maxAppendSize) {
            done(maxAppendSizeError(maxAppendSize));
            return;
          }
          const fault = this.ctx.faults.take({ on: 'append', stream: target.streamId });
          const outcome = await this.faultedWrite(fault, target, events, call);
          if (outcome === 'answered') {
            done(this.appendFaultStatus(fault!));
            return;
          }
          if (outcome === 'held') return; // the client's deadline ends the call
          if (outcome.kind === 'stream-deleted') {
            done(streamDeletedError(target.streamId));
            return;
          }
          done(null, this.appendResp(outcome, target));
        } catch (error) {
          done(this.ctx.failure(rpc, error));
        }
      })();
    });
  }

  /**
   * Performs a write under an append fault: 'answered' when the fault's status is the answer,
   * 'held' when the answer is withheld past the caller's deadline, else the write's outcome.
   */
  private async faultedWrite(
    fault: FaultRule | undefined,
    target: AppendTarget,
    events: readonly ProposedEvent[],
    call: {
      cancelled: boolean;
      getDeadline(): Date | number;
      once(event: 'cancelled', f: () => void): unknown;
    },
    deadline?: number,
  ): Promise<WriteOutcome | 'answered' | 'held'> {
    if (fault?.on !== 'append')
      return this.ctx.log.append(target.streamId, target.expected, events);
    if (fault.afterWrite) this.ctx.log.append(target.streamId, target.expected, events);
    if (fault.kind !== 'deadline') return 'answered';
    const until = deadline ?? Number(call.getDeadline());
    await hold(call, Number.isFinite(until) ? until - Date.now() + 50 : 60_000);
    return deadline === undefined ? 'held' : 'answered';
  }

  private appendFaultStatus(fault: FaultRule): RpcError {
    return fault.kind === 'timeout'
      ? rpcError(Status.ABORTED, 'Operation timed out: Commit phase timeout.')
      : rpcError(Status.UNAVAILABLE, 'Server Is Not Ready');
  }

  private appendResp(
    outcome: Exclude<WriteOutcome, { kind: 'stream-deleted' }>,
    target: AppendTarget,
  ): AppendResp {
    const response = new streams.AppendResp();
    const empty = () => new shared.Empty();
    if (outcome.kind === 'written') {
      const success = new streams.AppendResp.Success();
      if (outcome.last < 0n) success.setNoStream(empty());
      else success.setCurrentRevision(outcome.last.toString());
      if (outcome.position < 0n) success.setNoPosition(empty());
      else {
        success.setPosition(
          new streams.AppendResp.Position()
            .setCommitPosition(outcome.position.toString())
            .setPreparePosition(outcome.position.toString()),
        );
      }
      return response.setSuccess(success);
    }
    // The server fills both the current fields and their 20.6.0 predecessors.
    const wrong = new streams.AppendResp.WrongExpectedVersion();
    const { expected } = target;
    if (expected.kind === 'any') wrong.setExpectedAny(empty()).setAny2060(empty());
    else if (expected.kind === 'stream_exists')
      wrong.setExpectedStreamExists(empty()).setStreamExists2060(empty());
    else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(empty());
    else
      wrong
        .setExpectedRevision(expected.revision.toString())
        .setExpectedRevision2060(Number(expected.revision));
    if (outcome.current === null) wrong.setCurrentNoStream(empty()).setNoStream2060(empty());
    else
      wrong
        .setCurrentRevision(outcome.current.toString())
        .setCurrentRevision2060(Number(outcome.current));
    return response.setWrongExpectedVersion(wrong);
  }

  // -------------------------------------------------------------------------------------------
  // Streams.BatchAppend: many appends multiplexed on one call, each by correlation id

  batchAppend(call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void {
    const rpc = 'Streams.BatchAppend';
    this.ctx.enter(rpc, call.metadata);
    const pending = new Map<
      string,
      { target: BatchTarget; events: ProposedEvent[]; size: number }
    >();
    const inFlight = new Set<Promise<void>>();
    let ended = false;
    const answer = (
      correlation: InstanceType<typeof shared.UUID>,
      streamId: string,
      fill: (r: BatchAppendResp) => void,
    ) => {
      if (call.cancelled || call.writableEnded) return;
      const response = new streams.BatchAppendResp()
        .setCorrelationId(correlation)
        .setStreamIdentifier(toIdentifier(streamId));
      fill(response);
      call.write(response);
    };
    const finishIfIdle = () => {
      if (ended && inFlight.size === 0 && !call.writableEnded) call.end();
    };
    call.on('error', () => undefined);
    call.on('end', () => {
      ended = true;
      finishIfIdle();
    });
    call.on('data', (request: BatchAppendReq) => {
      const correlation = request.getCorrelationId();
      const id =
        correlation && (correlation.hasString() || correlation.hasStructured())
          ? correlation
          : undefined;
      if (!id) {
        call.emit(
          'error',
          this.ctx.failure(rpc, new Problem('BatchAppendReq: correlation_id is required')),
        );
        return;
      }
      const key = id.hasString() ? id.getString() : id.serializeBinary().join(',');
      try {
        if (request.hasOptions()) {
          pending.set(key, { target: parseBatchOptions(request), events: [], size: 0 });
        }
        const entry = pending.get(key);
        if (!entry) {
          // The server ignores messages of a correlation id it holds no options for.
          this.ctx.violation(
            rpc,
            'request',
            'proposed messages for a correlation id without options',
          );
          return;
        }
        request.getProposedMessagesList().forEach((message, index) => {
          const event = parseProposed(
            message,
            `BatchAppend: event ${entry.events.length + index + 1}`,
          );
          entry.events.push(event);
          entry.size += sizeOf(event);
        });
        const maxAppendSize = this.ctx.options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE;
        if (entry.size > maxAppendSize) {
          pending.delete(key);
          answer(id, entry.target.streamId, (r) => r.setError(batchMaxAppendSize(maxAppendSize)));
          return;
        }
        if (!request.getIsFinal()) return;
        pending.delete(key);
        const work = this.completeBatch(call, entry.target, entry.events, (fill) => {
          answer(id, entry.target.streamId, fill);
        }).finally(() => {
          inFlight.delete(work);
          finishIfIdle();
        });
        inFlight.add(work);
      } catch (error) {
        const reason = error instanceof Problem ? error.reason : String(error);
        this.ctx.failure(rpc, error);
        const entry = pending.get(key);
        pending.delete(key);
        answer(id, entry?.target.streamId ?? '', (r) => r.setError(batchBadRequest(reason)));
      }
    });
  }

  private async completeBatch(
    call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>,
    target: BatchTarget,
    events: readonly ProposedEvent[],
    answer: (fill: (response: BatchAppendResp) => void) => void,
  ): Promise<void> {
    // The server gives up at the options' deadline or its own write timeout, whichever is first.
    const timeoutAt = Math.min(
      target.deadline ?? Number.POSITIVE_INFINITY,
      Date.now() + (this.ctx.options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS),
    );
    if (timeoutAt <= Date.now()) {
      answer((r) => r.setError(batchTimeout()));
      return;
    }
    const fault = this.ctx.faults.take({ on: 'append', stream: target.streamId });
    if (fault?.on === 'append' && fault.kind === 'unavailable') {
      if (fault.afterWrite) this.ctx.log.append(target.streamId, target.expected, events);
      call.emit('error', rpcError(Status.UNAVAILABLE, 'Server Is Not Ready'));
      return;
    }
    const outcome = await this.faultedWrite(fault, target, events, call, timeoutAt);
    if (outcome === 'answered' || outcome === 'held') {
      answer((r) => r.setError(batchTimeout()));
      return;
    }
    answer((response) => {
      if (outcome.kind === 'stream-deleted') {
        response.setError(batchStreamDeleted(target.streamId));
      } else if (outcome.kind === 'wrong-expected-version') {
        response.setError(batchWrongExpectedVersion(outcome.current, target.expected));
      } else {
        const success = new streams.BatchAppendResp.Success();
        if (outcome.last < 0n) success.setNoStream(new emptyPb.Empty());
        else success.setCurrentRevision(outcome.last.toString());
        if (outcome.position < 0n) success.setNoPosition(new emptyPb.Empty());
        else {
          success.setPosition(
            new shared.AllStreamPosition()
              .setCommitPosition(outcome.position.toString())
              .setPreparePosition(outcome.position.toString()),
          );
        }
        response.setSuccess(success);
      }
    });
  }

  // -------------------------------------------------------------------------------------------
  // Streams.Delete and Streams.Tombstone

  softDelete(call: ServerUnaryCall<DeleteReq, DeleteResp>, done: sendUnaryData<DeleteResp>): void {
    const outcome = this.delete('Streams.Delete', call, 'soft');
    if (typeof outcome !== 'bigint') done(outcome);
    else {
      const position = new streams.DeleteResp.Position()
        .setCommitPosition(outcome.toString())
        .setPreparePosition(outcome.toString());
      done(null, new streams.DeleteResp().setPosition(position));
    }
  }

  tombstone(
    call: ServerUnaryCall<TombstoneReq, TombstoneResp>,
    done: sendUnaryData<TombstoneResp>,
  ): void {
    const outcome = this.delete('Streams.Tombstone', call, 'hard');
    if (typeof outcome !== 'bigint') done(outcome);
    else {
      const position = new streams.TombstoneResp.Position()
        .setCommitPosition(outcome.toString())
        .setPreparePosition(outcome.toString());
      done(null, new streams.TombstoneResp().setPosition(position));
    }
  }

  /** The position of the deletion's record, or the status to answer with. */
  private delete(
    rpc: string,
    call: ServerUnaryCall<DeleteReq | TombstoneReq, unknown>,
    how: 'soft' | 'hard',
  ): bigint | RpcError {
    this.ctx.enter(rpc, call.metadata);
    try {
      const target = parseDeletion(call.request, how === 'soft' ? 'DeleteReq' : 'TombstoneReq');
      const outcome =
        how === 'soft'
          ? this.ctx.log.softDelete(target.streamId, target.expected)
          : this.ctx.log.tombstone(target.streamId, target.expected);
      if (outcome.kind === 'stream-deleted') return streamDeletedError(target.streamId);
      if (outcome.kind === 'written') return outcome.position;
      // The trailer carries the expectation as the server's ExpectedVersion constants.
      const { expected } = target;
      const code =
        expected.kind === 'any'
          ? -2n
          : expected.kind === 'no_stream'
            ? -1n
            : expected.kind === 'stream_exists'
              ? -4n
              : expected.revision;
      return wrongExpectedVersionError(target.streamId, code, outcome.current);
    } catch (error) {
      return this.ctx.failure(rpc, error);
    }
  }
}
