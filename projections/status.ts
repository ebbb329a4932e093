import type { Position } from '../services/event-store/types.js';
import type { FailedEvent, ProjectionState, ProjectionStatus } from './types.js';

/**
 * The status of one projection as a pure reducer, so the transitions the ops endpoint shows
 * are specified (and tested) apart from the runner's I/O. `stopped` and `closed` are sticky:
 * only `restarted` leaves `stopped`, nothing leaves `closed`.
 */
export type StatusEvent =
  | { readonly type: 'waiting_for_lock' }
  | { readonly type: 'lock_acquired' }
  | { readonly type: 'lock_lost'; readonly reason: string }
  /** The subscription has delivered everything visible and no batch is in flight. */
  | { readonly type: 'caught_up' }
  | {
      readonly type: 'batch_committed';
      readonly events: number;
      readonly position: Position;
      /** The batch was cut at its size limit (more events were waiting). */
      readonly full: boolean;
      /** The subscription has reported catching up at least once. */
      readonly subscriptionCaughtUp: boolean;
    }
  | { readonly type: 'failed'; readonly error: FailedEvent }
  | { readonly type: 'retrying'; readonly reason: string }
  | { readonly type: 'restarted' }
  | {
      readonly type: 'lag_probed';
      readonly position: Position | null;
      readonly headPosition: Position | null;
      readonly lagEvents: number;
      readonly lagSeconds: number;
      /** The checkpoint row's error (a stop recorded by whichever process applies it). */
      readonly error: FailedEvent | null;
    }
  | { readonly type: 'closed' };

export const initialStatus = (name: string, now: string): ProjectionStatus => ({
  name,
  state: 'starting',
  leader: false,
  position: null,
  headPosition: null,
  lagEvents: null,
  lagSeconds: null,
  eventsApplied: 0,
  lastBatchAt: null,
  error: null,
  retrying: null,
  since: now,
});

const maxPosition = (a: Position | null, b: Position | null): Position | null =>
  a === null ? b : b === null ? a : a > b ? a : b;

const enter = (
  status: ProjectionStatus,
  state: ProjectionState,
  now: string,
  changes: Partial<ProjectionStatus> = {},
): ProjectionStatus => ({
  ...status,
  ...changes,
  state,
  since: state === status.state ? status.since : now,
});

export const nextStatus = (
  status: ProjectionStatus,
  event: StatusEvent,
  now: string,
): ProjectionStatus => {
  if (status.state === 'closed') return status;
  if (event.type === 'closed') return enter(status, 'closed', now, { leader: false });
  if (status.state === 'stopped') {
    if (event.type === 'restarted') return enter(status, 'starting', now, { error: null });
    if (event.type === 'lag_probed') return withProbe(status, event);
    if (event.type === 'lock_lost') return { ...status, leader: false };
    return status;
  }
  switch (event.type) {
    case 'waiting_for_lock':
      return enter(status, 'standby', now, { leader: false });
    case 'lock_acquired':
      return enter(status, 'running', now, { leader: true, retrying: null });
    case 'lock_lost':
      return enter(status, 'standby', now, { leader: false, retrying: event.reason });
    case 'caught_up':
      return status.leader
        ? enter(status, 'caught_up', now, { lagEvents: 0, lagSeconds: 0, retrying: null })
        : status;
    case 'batch_committed': {
      const caughtUp = !event.full && event.subscriptionCaughtUp;
      return enter(status, caughtUp ? 'caught_up' : 'running', now, {
        position: event.position,
        eventsApplied: status.eventsApplied + event.events,
        lastBatchAt: now,
        retrying: null,
        error: null,
        ...(caughtUp ? { lagEvents: 0, lagSeconds: 0 } : {}),
      });
    }
    case 'failed':
      return enter(status, 'stopped', now, { leader: false, error: event.error });
    case 'retrying':
      return { ...status, retrying: event.reason };
    case 'restarted':
      return status;
    case 'lag_probed':
      return withProbe(status, event);
  }
};

const withProbe = (
  status: ProjectionStatus,
  event: Extract<StatusEvent, { type: 'lag_probed' }>,
): ProjectionStatus => {
  const position = maxPosition(status.position, event.position);
  // A probe races the batches of this process: once the checkpoint has reached the head it
  // saw, its counts are stale, not a lag.
  const behind =
    event.headPosition !== null && (position === null || event.headPosition > position);
  return {
    ...status,
    position,
    headPosition: maxPosition(status.headPosition, event.headPosition),
    lagEvents: behind ? event.lagEvents : 0,
    lagSeconds: behind ? event.lagSeconds : 0,
    // Another process's stop is visible here too; this process's own stop is already set.
    error: status.error ?? (status.leader ? null : event.error),
  };
};
