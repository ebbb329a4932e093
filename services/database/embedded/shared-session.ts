import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createInProcessHolder, createSessionHolder } from './session-holder.js';
import { SessionTurns } from './session-turns.js';

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

// The hand-over lives in session-turns.ts, the holders in session-holder.ts.
export const createSharedSession = (
  pglite: PGlite,
  options: SharedSessionOptions = {},
): SharedSession => {
  const turns = new SessionTurns(options);
  const foreignWriteListeners = new Set<() => void>();
  return {
    holder: (holderOptions) =>
      createSessionHolder(turns, pglite, foreignWriteListeners, holderOptions),
    inProcess: () => createInProcessHolder(turns, pglite),
    onForeignWrite: (listener) => {
      foreignWriteListeners.add(listener);
      return () => foreignWriteListeners.delete(listener);
    },
    state: () => turns.state(),
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
