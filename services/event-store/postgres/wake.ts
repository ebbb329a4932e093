import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../database/database.js';
import type { Logger } from '../../runtime/logger.js';
import { isPosition } from '../position.js';
import type { EventFilter, Position } from '../types.js';
import { notifyChannel, sendNotify } from './queries.js';

/**
 * Wakes subscribers when new events may be visible.
 *
 * - In this process, an append wakes subscribers directly.
 * - Across processes (server Postgres), appends publish a NOTIFY and one LISTEN connection
 *   per store wakes local subscribers. NOTIFY is sent after the append's commit, coalesced to
 *   at most one in flight: a NOTIFY inside the append transaction would take Postgres' global
 *   notify lock at commit and serialise every writer's commit. Each NOTIFY is a transaction
 *   with a commit flush of its own, so under load they are also spaced out (≤ 1 per
 *   NOTIFY_SPACING_MS): other processes learn of new events within milliseconds either way.
 * - A wake-up names the categories of the streams appended (`network-`, `request-`, … see
 *   `streamCategory`) and the position of the newest event appended. A subscriber whose filter
 *   names stream prefixes reads the log only for a category it may want, and not at all when a
 *   read it already made reached that position; until it has read that far (a transaction
 *   older than the append may still hide it) it reads again, spaced out. A wake-up that cannot
 *   name them (a transaction committed by its owner, another process's write through an
 *   embedded folder, a reconnected listener, an older process's NOTIFY) concerns everyone.
 * - Subscribers also poll, so a lost NOTIFY (reconnect, crashed writer) only delays them.
 */
export interface Wake {
  /** A subscriber's view of the wake-ups: those its filter may want. */
  interest(filter: EventFilter | undefined): WakeInterest;
  /** Call after a commit that appended events to `streamIds`, the newest at `position`. */
  appended(streamIds?: Iterable<string>, position?: Position): void;
  /** Starts the cross-process listener (idempotent). */
  listen(): void;
  close(): Promise<void>;
}

/** What a subscriber has been woken for and not read yet. */
export interface WakeInterest {
  /** Take it before a read; pass it to `read` after. */
  readonly generation: number;
  /**
   * After a read begun at `generation` whose cursor is now `cursor`: forgets what that read
   * covered. True when something concerning is still unread (read again, spaced out).
   */
  read(generation: number, cursor: Position | undefined): boolean;
  /** Resolves at once when something is unread, else on a concerning wake-up or `timeoutMs`. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
}

const NOTIFY_SPACING_MS = 10;
/** Postgres refuses NOTIFY payloads of 8000 bytes or more; past this, a wake-up for everyone. */
const MAX_PAYLOAD = 7000;

/** The category of a stream: its id up to and including the first `-` (all of it without one). */
export const streamCategory = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash + 1);
};

/** Whether a stream of `category` may match one of `prefixes` (either starts with the other). */
const mayMatch = (category: string, prefixes: readonly string[]): boolean =>
  prefixes.some((prefix) => prefix.startsWith(category) || category.startsWith(prefix));

/** `any`: everyone, position unknown. */
type Signal = { readonly categories: ReadonlySet<string>; readonly position: Position } | 'any';

/** Unread: a position to reach, or `any` (one read begun after it covers it). */
type Target = Position | 'any' | null;

const later = (a: Target, b: Position | 'any'): Target =>
  a === 'any' || b === 'any' ? 'any' : a === null || b > a ? b : a;

/** NOTIFY payload: `sender`, or `sender position category,category…`. */
const encodePayload = (sender: string, signal: Signal): string => {
  if (signal === 'any') return sender;
  const categories = [...signal.categories];
  if (categories.some((category) => /[\s,]/.test(category))) return sender;
  const payload = `${sender} ${signal.position} ${categories.join(',')}`;
  return payload.length > MAX_PAYLOAD ? sender : payload;
};

const decodePayload = (payload: string): { sender: string; signal: Signal } => {
  const [sender = '', position, categories] = payload.split(' ');
  if (position === undefined || categories === undefined || !isPosition(position)) {
    return { sender, signal: 'any' };
  }
  return { sender, signal: { categories: new Set(categories.split(',')), position } };
};

export const createWake = (database: Database, logger: Logger): Wake => {
  /** Tells this store's notifications from those of other processes (and other stores). */
  const sender = randomUUID();
  let closed = false;

  interface Listener {
    readonly prefixes: readonly string[] | undefined;
    generation: number;
    target: Target;
    resolve: (() => void) | undefined;
  }
  const listeners = new Set<Listener>();

  const deliver = (signal: Signal): void => {
    for (const listener of listeners) {
      if (
        signal !== 'any' &&
        listener.prefixes !== undefined &&
        ![...signal.categories].some((category) => mayMatch(category, listener.prefixes ?? []))
      ) {
        continue;
      }
      listener.generation += 1;
      listener.target = later(listener.target, signal === 'any' ? 'any' : signal.position);
      const resolve = listener.resolve;
      listener.resolve = undefined;
      resolve?.();
    }
  };
  const bump = (): void => {
    deliver('any');
  };

  // Coalesced NOTIFY: while one is in flight, further appends are merged into the next one.
  let notifyInFlight: Promise<void> | null = null;
  let pending: Signal | null = null;
  const merge = (a: Signal | null, b: Signal): Signal => {
    if (a === null) return b;
    if (a === 'any' || b === 'any') return 'any';
    return {
      categories: new Set([...a.categories, ...b.categories]),
      position: b.position > a.position ? b.position : a.position,
    };
  };
  const publish = (signal: Signal): void => {
    if (database.kind !== 'postgres' || closed) return;
    if (notifyInFlight) {
      pending = merge(pending, signal);
      return;
    }
    notifyInFlight = sendNotify(database.pool, encodePayload(sender, signal))
      .catch((error: unknown) => {
        logger.debug({ err: error }, 'NOTIFY failed; subscribers will poll');
      })
      .then(() =>
        pending
          ? new Promise<void>((resolve) => setTimeout(resolve, NOTIFY_SPACING_MS))
          : undefined,
      )
      .finally(() => {
        notifyInFlight = null;
        const next = pending;
        pending = null;
        if (next) publish(next);
      });
  };

  // Another process's append through this process's embedded database (its local channel).
  const stopForeign = database.onForeignWrite?.(bump);

  let listener: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let listening = false;
  const connectListener = (attempt: number): void => {
    if (closed || !database.connectionString) return;
    const client = new pg.Client({ connectionString: database.connectionString });
    listener = client;
    const retry = (error: unknown): void => {
      if (closed || listener !== client) return;
      listener = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      const delay = Math.min(30_000, 250 * 2 ** attempt);
      logger.warn(
        { err: error, retryInMs: delay },
        'event notification listener lost; polling until it is back',
      );
      retryTimer = setTimeout(() => {
        connectListener(attempt + 1);
      }, delay);
    };
    client.on('error', retry);
    client.on('end', () => {
      retry(new Error('connection ended'));
    });
    // This store's own appends woke its subscribers already (`appended`).
    client.on('notification', (message) => {
      const { sender: from, signal } = decodePayload(message.payload ?? '');
      if (from !== sender) deliver(signal);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${notifyChannel}`))
      .then(() => {
        // Anything committed while we were not listening is found by this wake-up.
        bump();
        attempt = 0;
      })
      .catch(retry);
  };

  return {
    interest: (filter) => {
      const prefixes = filter?.streamPrefixes?.length ? filter.streamPrefixes : undefined;
      const listener: Listener = { prefixes, generation: 0, target: null, resolve: undefined };
      listeners.add(listener);
      return {
        get generation() {
          return listener.generation;
        },
        read: (generation, cursor) => {
          const target = listener.target;
          if (target === 'any') {
            // Covered when no wake-up came during the read (it began after the last one).
            if (generation === listener.generation) listener.target = null;
          } else if (target !== null && cursor !== undefined && cursor >= target) {
            listener.target = null;
          }
          return listener.target !== null;
        },
        wait: (timeoutMs, signal) =>
          new Promise<void>((resolve) => {
            if (listener.target !== null || closed || signal?.aborted) {
              resolve();
              return;
            }
            const done = (): void => {
              clearTimeout(timer);
              signal?.removeEventListener('abort', done);
              if (listener.resolve === done) listener.resolve = undefined;
              resolve();
            };
            const timer = setTimeout(done, timeoutMs);
            signal?.addEventListener('abort', done, { once: true });
            listener.resolve?.();
            listener.resolve = done;
          }),
        close: () => {
          listeners.delete(listener);
          listener.resolve?.();
        },
      };
    },
    appended: (streamIds, position) => {
      const categories = new Set<string>();
      for (const streamId of streamIds ?? []) categories.add(streamCategory(streamId));
      const signal: Signal =
        position === undefined || categories.size === 0 ? 'any' : { categories, position };
      deliver(signal);
      publish(signal);
    },
    listen: () => {
      if (listening || database.kind !== 'postgres') return;
      listening = true;
      connectListener(0);
    },
    close: async () => {
      closed = true;
      stopForeign?.();
      clearTimeout(retryTimer);
      bump();
      listeners.clear();
      await notifyInFlight;
      const client = listener;
      listener = null;
      if (client) {
        client.removeAllListeners();
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
      }
    },
  };
};
