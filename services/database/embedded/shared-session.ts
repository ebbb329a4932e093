import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import {
  lastTransactionStatus,
  reportsWrites,
  simpleQuery,
  sync,
  type TransactionStatus,
} from './wire.js';

/**
 * PGlite is one Postgres session. The owner shares it between its own pool and the processes
 * that reach it through the local channel the way a transaction pooler does: a holder gets
 * the session with its first message and keeps it until a ReadyForQuery says "idle", so an
 * explicit transaction or an extended-protocol exchange (Parse … Sync) is never interleaved
 * with another holder's statements. Everything runs in one session, so session-level state
 * (SET without LOCAL, LISTEN, named prepared statements, session advisory locks) is shared by
 * every holder; the product only uses transaction-scoped state.
 */
export interface SessionHolder {
  /** Runs frontend messages once this holder has the session; resolves with the reply. */
  exec(messages: Uint8Array): Promise<Uint8Array>;
  /**
   * Ends the holder: an exchange or transaction it left open is closed (Sync, then ROLLBACK),
   * the session passes on. Idempotent.
   */
  end(): Promise<void>;
}

export interface HolderOptions {
  /** Names the holder in diagnostics. */
  readonly name: string;
  /**
   * Called when the holder kept the session in a transaction without sending anything for
   * `idleInTransactionMs` while others waited; it should end the holder (and its connection).
   */
  readonly onIdleInTransaction?: () => void;
}

export interface SharedSession {
  holder(options: HolderOptions): SessionHolder;
  /**
   * An object `createPgConfig` accepts in place of the PGlite instance: the in-process pool's
   * messages go through the same hand-over as every other holder's.
   */
  inProcess(): PgliteLike;
  /** Called after another holder's transaction that wrote (INSERT, UPDATE, …) ended. */
  onForeignWrite(listener: () => void): () => void;
  /** Which holder has the session and how many wait: for diagnostics and tests. */
  state(): { readonly holder: string | null; readonly waiting: number };
}

/** The part of PGlite that `@electric-sql/pglite/node-postgres` uses. */
export interface PgliteLike {
  readonly waitReady: Promise<void>;
  execProtocolStream: PGlite['execProtocolStream'];
}

interface Waiter {
  readonly holder: symbol;
  readonly grant: () => void;
  readonly cancel: (reason: Error) => void;
}

export interface SharedSessionOptions {
  /** How long a holder may sit idle inside a transaction while others wait (default 30 s). */
  readonly idleInTransactionMs?: number;
  /** Told when someone has waited `slowWaitMs` (default 10 s) for the session: who holds it. */
  readonly onSlowWait?: (report: {
    readonly waiter: string;
    readonly holder: string | null;
    readonly waitedMs: number;
    readonly waiting: number;
  }) => void;
  readonly slowWaitMs?: number;
}

export const createSharedSession = (
  pglite: PGlite,
  options: SharedSessionOptions = {},
): SharedSession => {
  const idleInTransactionMs = options.idleInTransactionMs ?? 30_000;
  let current: symbol | null = null;
  const names = new Map<symbol, string>();
  const queue: Waiter[] = [];
  const foreignWriteListeners = new Set<() => void>();
  // PGlite keeps per-call parser state across the await inside execProtocol*: two calls must
  // never overlap, whoever makes them.
  const slowWaitMs = options.slowWaitMs ?? 10_000;
  let running: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = running.then(async () => {
      const started = Date.now();
      const slow = options.onSlowWait
        ? setInterval(() => {
            options.onSlowWait?.({
              waiter: 'a PGlite call still running',
              holder: current === null ? null : (names.get(current) ?? 'ended holder'),
              waitedMs: Date.now() - started,
              waiting: queue.length,
            });
          }, slowWaitMs).unref()
        : undefined;
      try {
        return await work();
      } finally {
        clearInterval(slow);
      }
    });
    running = result.catch(() => undefined);
    return result;
  };

  const acquire = (holder: symbol): Promise<void> => {
    if (current === null || current === holder) {
      current = holder;
      return Promise.resolve();
    }
    const started = Date.now();
    const slow = options.onSlowWait
      ? setInterval(() => {
          options.onSlowWait?.({
            waiter: names.get(holder) ?? 'ended holder',
            holder: current === null ? null : (names.get(current) ?? 'ended holder'),
            waitedMs: Date.now() - started,
            waiting: queue.length,
          });
        }, slowWaitMs).unref()
      : undefined;
    return new Promise<void>((resolve, reject) => {
      queue.push({ holder, grant: resolve, cancel: reject });
    }).finally(() => {
      clearInterval(slow);
    });
  };

  const release = (holder: symbol): void => {
    if (current !== holder) return;
    const next = queue.shift();
    current = next?.holder ?? null;
    next?.grant();
  };

  const idleTimers = new Map<symbol, NodeJS.Timeout>();
  const watchIdle = (holder: symbol, onIdle: (() => void) | undefined): void => {
    clearTimeout(idleTimers.get(holder));
    idleTimers.delete(holder);
    if (!onIdle || current !== holder) return;
    const timer = setTimeout(() => {
      idleTimers.delete(holder);
      if (current !== holder) return;
      // Only someone waiting makes an idle transaction a problem.
      if (queue.length > 0) onIdle();
      else watchIdle(holder, onIdle);
    }, idleInTransactionMs);
    timer.unref();
    idleTimers.set(holder, timer);
  };

  /** Updates who holds the session after `holder` ran something that answered `status`. */
  const settle = (holder: symbol, status: TransactionStatus | undefined): void => {
    if (status === 'I') release(holder);
  };

  const holder = (holderOptions: HolderOptions): SessionHolder => {
    const id = Symbol(holderOptions.name);
    names.set(id, holderOptions.name);
    let chain: Promise<unknown> = Promise.resolve();
    let ended = false;
    let wrote = false;
    const execRaw = async (messages: Uint8Array): Promise<Uint8Array> => {
      await acquire(id);
      clearTimeout(idleTimers.get(id));
      const output = await serially(() => pglite.execProtocolRaw(messages));
      if (reportsWrites(output)) wrote = true;
      const status = lastTransactionStatus(output);
      if (status === 'I' && wrote) {
        wrote = false;
        for (const listener of foreignWriteListeners) listener();
      }
      settle(id, status);
      watchIdle(id, holderOptions.onIdleInTransaction);
      return output;
    };
    const inOrder = <T>(work: () => Promise<T>): Promise<T> => {
      const result = chain.then(work);
      chain = result.catch(() => undefined);
      return result;
    };
    return {
      exec: (messages) =>
        ended
          ? Promise.reject(new Error(`session holder ${holderOptions.name} has ended`))
          : inOrder(() => execRaw(messages)),
      end: () => {
        if (!ended) {
          ended = true;
          // A message still waiting for the session is dropped, not run for a holder that left.
          const waiting = queue.findIndex((waiter) => waiter.holder === id);
          if (waiting >= 0) {
            queue.splice(waiting, 1)[0]?.cancel(new Error(`${holderOptions.name} has ended`));
          }
        }
        return inOrder(async () => {
          if (current === id) {
            // Close an unfinished extended-protocol exchange, then an open transaction.
            const status = lastTransactionStatus(
              await serially(() => pglite.execProtocolRaw(sync())),
            );
            if (status !== 'I')
              await serially(() => pglite.execProtocolRaw(simpleQuery('ROLLBACK')));
            release(id);
          }
          clearTimeout(idleTimers.get(id));
          idleTimers.delete(id);
          names.delete(id);
        });
      },
    };
  };

  const inProcess = (): PgliteLike => {
    const id = Symbol('in-process pool');
    names.set(id, 'in-process pool');
    return {
      waitReady: pglite.waitReady,
      execProtocolStream: async (message, execOptions) => {
        await acquire(id);
        const messages = await serially(() => pglite.execProtocolStream(message, execOptions));
        const ready = messages.findLast((reply) => reply.name === 'readyForQuery') as
          { status?: string } | undefined;
        settle(id, ready?.status as TransactionStatus | undefined);
        return messages;
      },
    };
  };

  return {
    holder,
    inProcess,
    onForeignWrite: (listener) => {
      foreignWriteListeners.add(listener);
      return () => foreignWriteListeners.delete(listener);
    },
    state: () => ({
      holder: current === null ? null : (names.get(current) ?? 'ended holder'),
      waiting: queue.length,
    }),
  };
};

/**
 * The in-process pool on `session`. PGlite is a single session: its pg config pins the pool
 * to one connection, which also serialises this process's transactions.
 */
export const inProcessPool = async (session: SharedSession): Promise<pg.Pool> => {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  // createPgConfig's connection calls only `waitReady` and `execProtocolStream`, which the
  // session's in-process holder provides.
  return new pg.Pool(createPgConfig(session.inProcess() as unknown as PGlite));
};
