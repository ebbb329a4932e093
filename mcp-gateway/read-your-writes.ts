import type { Position } from '../services/event-store/types.js';

/**
 * Read-your-writes by position. A writing tool answers as soon as its events are appended
 * (from the decided events, not the read model) and records where they are in the log; the
 * caller's next read waits, bounded, until the projections that apply them have reached that
 * position. Every read tool runs through `runTool`, which asks `caughtUp` first, so no read
 * tool can forget it; a caller that wrote nothing waits for nothing.
 *
 * Kept per caller (its actor) in this process: a session, a stateless 2026 request and the
 * REST surface of one token share it. A write is waited for once: reached or timed out, it
 * is forgotten, so a stuck projection costs one bounded wait per write, not every read.
 */
export interface ReadYourWrites {
  /** Remembers that `actor` appended, at `position`, an event `projection` applies. */
  wrote(actor: string, projection: string, position: Position): void;
  /** Resolves once the projections have applied `actor`'s recorded writes, or time ran out. */
  caughtUp(actor: string): Promise<void>;
}

export interface ReadYourWritesDeps {
  readonly waitForPosition: (
    projection: string,
    position: Position,
    options: { readonly timeoutMs: number },
  ) => Promise<boolean>;
  /** How long a read waits for the caller's writes (default 2000 ms). */
  readonly timeoutMs?: number;
  /** Callers remembered at once (default 10,000); the oldest is forgotten first. */
  readonly maxCallers?: number;
}

export const createReadYourWrites = (deps: ReadYourWritesDeps): ReadYourWrites => {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const maxCallers = deps.maxCallers ?? 10_000;
  /** actor → projection → the newest position it wrote that may not be applied yet. */
  const pending = new Map<string, Map<string, Position>>();

  return {
    wrote: (actor, projection, position) => {
      const writes = pending.get(actor) ?? new Map<string, Position>();
      const before = writes.get(projection);
      if (before === undefined || before < position) writes.set(projection, position);
      // Re-inserted: the map's order is then the order of the callers' latest writes.
      pending.delete(actor);
      pending.set(actor, writes);
      while (pending.size > maxCallers) {
        const oldest = pending.keys().next();
        if (oldest.done) break;
        pending.delete(oldest.value);
      }
    },

    caughtUp: async (actor) => {
      const writes = pending.get(actor);
      if (!writes) return;
      await Promise.all(
        [...writes].map(async ([projection, position]) => {
          await deps.waitForPosition(projection, position, { timeoutMs });
          if (writes.get(projection) === position) writes.delete(projection);
        }),
      );
      if (writes.size === 0 && pending.get(actor) === writes) pending.delete(actor);
    },
  };
};
