import type { SharedSessionOptions } from './shared-session.js';
import type { TransactionStatus } from './wire.js';

interface Waiter {
  readonly holder: symbol;
  readonly grant: () => void;
  readonly cancel: (reason: Error) => void;
}

/**
 * Whose turn it is on the one PGlite session: the holder that has it, the holders waiting in
 * line, and the one PGlite call that may run at a time.
 */
export class SessionTurns {
  private current: symbol | null = null;
  private readonly names = new Map<symbol, string>();
  private readonly queue: Waiter[] = [];
  private readonly idleTimers = new Map<symbol, NodeJS.Timeout>();
  // PGlite keeps per-call parser state across the await inside execProtocol*: two calls must
  // never overlap, whoever makes them.
  private running: Promise<unknown> = Promise.resolve();
  private readonly idleInTransactionMs: number;
  private readonly slowWaitMs: number;

  constructor(private readonly options: SharedSessionOptions) {
    this.idleInTransactionMs = options.idleInTransactionMs ?? 30_000;
    this.slowWaitMs = options.slowWaitMs ?? 10_000;
  }

  /** A new holder, named in diagnostics until it is forgotten. */
  enrol(name: string): symbol {
    const id = Symbol(name);
    this.names.set(id, name);
    return id;
  }

  forget(holder: symbol): void {
    this.clearIdle(holder);
    this.names.delete(holder);
  }

  holds(holder: symbol): boolean {
    return this.current === holder;
  }

  /** Which holder has the session and how many wait. */
  state(): { readonly holder: string | null; readonly waiting: number } {
    return { holder: this.holderName(), waiting: this.queue.length };
  }

  /** Runs `work` (a PGlite call) once every call before it has finished. */
  serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.running.then(async () => {
      const slow = this.reportSlow(() => 'a PGlite call still running');
      try {
        return await work();
      } finally {
        clearInterval(slow);
      }
    });
    this.running = result.catch(() => undefined);
    return result;
  }

  /** Resolves when `holder` has the session (at once when it is free or already its). */
  acquire(holder: symbol): Promise<void> {
    if (this.current === null || this.current === holder) {
      this.current = holder;
      return Promise.resolve();
    }
    const slow = this.reportSlow(() => this.names.get(holder) ?? 'ended holder');
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ holder, grant: resolve, cancel: reject });
    }).finally(() => {
      clearInterval(slow);
    });
  }

  /** Passes the session on, if `holder` has it. */
  release(holder: symbol): void {
    if (this.current !== holder) return;
    const next = this.queue.shift();
    this.current = next?.holder ?? null;
    next?.grant();
  }

  /** Updates who holds the session after `holder` ran something that answered `status`. */
  settle(holder: symbol, status: TransactionStatus | undefined): void {
    if (status === 'I') this.release(holder);
  }

  /** A wait of `holder` for the session is given up with `reason`. */
  cancelWait(holder: symbol, reason: Error): void {
    const waiting = this.queue.findIndex((waiter) => waiter.holder === holder);
    if (waiting >= 0) this.queue.splice(waiting, 1)[0]?.cancel(reason);
  }

  clearIdle(holder: symbol): void {
    clearTimeout(this.idleTimers.get(holder));
    this.idleTimers.delete(holder);
  }

  /** Calls `onIdle` when `holder` keeps the session, silent, while someone waits. */
  watchIdle(holder: symbol, onIdle: (() => void) | undefined): void {
    this.clearIdle(holder);
    if (!onIdle || this.current !== holder) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(holder);
      if (this.current !== holder) return;
      // Only someone waiting makes an idle transaction a problem.
      if (this.queue.length > 0) onIdle();
      else this.watchIdle(holder, onIdle);
    }, this.idleInTransactionMs);
    timer.unref();
    this.idleTimers.set(holder, timer);
  }

  private holderName(): string | null {
    return this.current === null ? null : (this.names.get(this.current) ?? 'ended holder');
  }

  /** Every `slowWaitMs`, tells onSlowWait who waits (`waiter`) and who holds the session. */
  private reportSlow(waiter: () => string): NodeJS.Timeout | undefined {
    if (!this.options.onSlowWait) return undefined;
    const started = Date.now();
    return setInterval(() => {
      this.options.onSlowWait?.({
        waiter: waiter(),
        holder: this.holderName(),
        waitedMs: Date.now() - started,
        waiting: this.queue.length,
      });
    }, this.slowWaitMs).unref();
  }
}
