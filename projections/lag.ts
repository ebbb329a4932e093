import type pg from 'pg';
import type { EventStore, Position } from '../services/event-store/types.js';
import { readCheckpoint } from './checkpoints.js';
import type { FailedEvent, Projection } from './types.js';

export interface LagSample {
  readonly position: Position | null;
  readonly headPosition: Position | null;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly error: FailedEvent | null;
}

export interface LagProbeOptions {
  readonly pool: pg.Pool;
  readonly eventStore: EventStore;
  readonly projection: Projection;
  readonly schema: string;
  /** Events counted at most (a larger backlog reads as this many). */
  readonly cap: number;
  readonly now: Date;
}

/**
 * How far a projection is behind, measured from the stored checkpoint (so a standby replica
 * reports the leader's progress): the newest event of its filter, the events after the
 * checkpoint (counted up to `cap`), and the age of the oldest of them by its metadata `at`.
 */
export const probeLag = async (options: LagProbeOptions): Promise<LagSample> => {
  const { eventStore, projection } = options;
  const checkpoint = await readCheckpoint(options.pool, options.schema, projection.name);
  const position = checkpoint?.position ?? null;
  const error = checkpoint?.error ?? null;
  const [head] = await eventStore.readAll({
    direction: 'backwards',
    maxCount: 1,
    filter: projection.filter,
  });
  if (!head || (position !== null && head.position <= position)) {
    return { position, headPosition: head?.position ?? null, lagEvents: 0, lagSeconds: 0, error };
  }
  const pending = await eventStore.readAll({
    ...(position === null ? {} : { fromPosition: position }),
    maxCount: options.cap,
    filter: projection.filter,
  });
  const oldest = pending[0] ? Date.parse(pending[0].metadata.at) : Number.NaN;
  // The two reads see the log's end at different moments: report the later one.
  const newest = pending.at(-1)?.position;
  return {
    position,
    headPosition: newest !== undefined && newest > head.position ? newest : head.position,
    lagEvents: pending.length,
    lagSeconds: Number.isFinite(oldest) ? Math.max(0, (options.now.getTime() - oldest) / 1000) : 0,
    error,
  };
};
