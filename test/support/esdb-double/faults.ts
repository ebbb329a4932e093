/**
 * Faults the double can inject, each one a way a real EventStoreDB (or the network before it)
 * fails a call. Rules are consumed in the order they were injected.
 */

export type AppendFaultKind =
  /**
   * The node cannot take the write: `Append` answers status UNAVAILABLE; on `BatchAppend` the
   * whole call (every append in flight on it) ends with UNAVAILABLE, as a dropped connection
   * does.
   */
  | 'unavailable'
  /**
   * The server's own write timeout: `Append` answers ABORTED "Operation timed out" (the server's
   * RpcExceptions.Timeout), `BatchAppend` answers the append with status DeadlineExceeded and a
   * `Timeout` detail.
   */
  | 'timeout'
  /**
   * No answer until the caller's deadline has passed (`Append`: the call's deadline, which the
   * client enforces; `BatchAppend`: the deadline in the append's options, after which the
   * server answers `Timeout`).
   */
  | 'deadline';

export type ReadTarget = 'read-stream' | 'read-all' | 'subscription';

export type FaultRule =
  | {
      readonly on: 'append';
      readonly kind: AppendFaultKind;
      /** Write the events first, then fail: the caller cannot know the append happened. */
      readonly afterWrite?: boolean;
      /** Only appends to this stream (exact name) or to names matching. */
      readonly stream?: string | RegExp;
      /** How many matching calls get the fault. Default 1; `Infinity` for all. */
      readonly times?: number;
      /** Let this many matching calls through first. Default 0. */
      readonly skip?: number;
    }
  | {
      readonly on: ReadTarget;
      /**
       * `slow`: hold the answer `delayMs` before its first message. `unavailable`: end the call
       * with status UNAVAILABLE at once. `drop`: (subscriptions) end the call with UNAVAILABLE
       * after `afterEvents` events were sent.
       */
      readonly kind: 'slow' | 'unavailable' | 'drop';
      readonly delayMs?: number;
      readonly afterEvents?: number;
      /** Read-stream faults: only reads of this stream (exact name) or names matching. */
      readonly stream?: string | RegExp;
      readonly times?: number;
      readonly skip?: number;
    };

export interface FaultCall {
  readonly on: 'append' | ReadTarget;
  readonly stream?: string;
}

export interface FaultHandle {
  /** How many calls this rule has faulted so far. */
  readonly fired: number;
  cancel(): void;
}

class ActiveRule implements FaultHandle {
  skips: number;
  remaining: number;
  fired = 0;

  constructor(
    readonly rule: FaultRule,
    readonly cancel: () => void,
  ) {
    this.skips = rule.skip ?? 0;
    this.remaining = rule.times ?? 1;
  }
}

const streamMatches = (selector: string | RegExp | undefined, stream: string | undefined) =>
  selector === undefined ||
  (stream !== undefined &&
    (typeof selector === 'string' ? selector === stream : selector.test(stream)));

export class FaultController {
  private rules: ActiveRule[] = [];
  /** Faults injected so far, by `on:kind`. */
  readonly counts = new Map<string, number>();

  inject(rule: FaultRule): FaultHandle {
    const active: ActiveRule = new ActiveRule(rule, () => {
      this.rules = this.rules.filter((candidate) => candidate !== active);
    });
    this.rules.push(active);
    return active;
  }

  clear(): void {
    this.rules = [];
  }

  /** The fault for this call, if any; consumes it. */
  take(call: FaultCall): FaultRule | undefined {
    for (const active of this.rules) {
      const { rule } = active;
      if (active.remaining <= 0 || rule.on !== call.on) continue;
      if (!streamMatches(rule.stream, call.stream)) continue;
      if (active.skips > 0) {
        active.skips -= 1;
        continue;
      }
      active.remaining -= 1;
      active.fired += 1;
      const key = `${rule.on}:${rule.kind}`;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      return rule;
    }
    return undefined;
  }
}
