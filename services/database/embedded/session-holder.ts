import type { PGlite } from '@electric-sql/pglite';
import type { HolderOptions, PgliteLike, SessionHolder } from './shared-session.js';
import type { SessionTurns } from './session-turns.js';
import {
  lastTransactionStatus,
  reportsWrites,
  simpleQuery,
  sync,
  type TransactionStatus,
} from './wire.js';

/** A holder of the session whose messages arrive as raw frontend bytes (the local channel). */
export const createSessionHolder = (
  turns: SessionTurns,
  pglite: PGlite,
  foreignWriteListeners: ReadonlySet<() => void>,
  holderOptions: HolderOptions,
): SessionHolder => {
  const id = turns.enrol(holderOptions.name);
  let chain: Promise<unknown> = Promise.resolve();
  let ended = false;
  let wrote = false;
  const execRaw = async (messages: Uint8Array): Promise<Uint8Array> => {
    await turns.acquire(id);
    turns.clearIdle(id);
    const output = await turns.serially(() => pglite.execProtocolRaw(messages));
    if (reportsWrites(output)) wrote = true;
    const status = lastTransactionStatus(output);
    if (status === 'I' && wrote) {
      wrote = false;
      for (const listener of foreignWriteListeners) listener();
    }
    turns.settle(id, status);
    turns.watchIdle(id, holderOptions.onIdleInTransaction);
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
        turns.cancelWait(id, new Error(`${holderOptions.name} has ended`));
      }
      return inOrder(async () => {
        if (turns.holds(id)) {
          // Close an unfinished extended-protocol exchange, then an open transaction.
          const status = lastTransactionStatus(
            await turns.serially(() => pglite.execProtocolRaw(sync())),
          );
          if (status !== 'I')
            await turns.serially(() => pglite.execProtocolRaw(simpleQuery('ROLLBACK')));
          turns.release(id);
        }
        turns.forget(id);
      });
    },
  };
};

/** The in-process pool's holder: pg's own protocol stream, handed over like every other. */
export const createInProcessHolder = (turns: SessionTurns, pglite: PGlite): PgliteLike => {
  const id = turns.enrol('in-process pool');
  return {
    waitReady: pglite.waitReady,
    execProtocolStream: async (message, execOptions) => {
      await turns.acquire(id);
      const messages = await turns.serially(() => pglite.execProtocolStream(message, execOptions));
      const ready = messages.findLast((reply) => reply.name === 'readyForQuery') as
        { status?: string } | undefined;
      turns.settle(id, ready?.status as TransactionStatus | undefined);
      return messages;
    },
  };
};
