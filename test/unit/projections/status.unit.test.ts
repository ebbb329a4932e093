import { describe, expect, it } from 'vitest';
import type { Position } from '../../../services/event-store/types.js';
import { initialStatus, nextStatus, type StatusEvent } from '../../../projections/status.js';
import type { FailedEvent, ProjectionStatus } from '../../../projections/types.js';

const P1 = '0000000000000001-0000000000000001' as Position;
const P2 = '0000000000000001-0000000000000002' as Position;
const P9 = '0000000000000009-0000000000000009' as Position;
const T0 = '2026-01-05T09:00:00.000Z';
const T1 = '2026-01-05T09:00:01.000Z';

const failure: FailedEvent = {
  position: P2,
  streamId: 'request-req-1',
  revision: '1',
  type: 'IntakeIssueOpened',
  eventId: '6a0c2b1e-41f4-4b7e-9b7e-2f5f0b8d1c11',
  message: 'boom',
  failedAt: T1,
};

const run = (...events: StatusEvent[]): ProjectionStatus =>
  events.reduce((status, event) => nextStatus(status, event, T1), initialStatus('requests', T0));

const committed = (full: boolean, subscriptionCaughtUp: boolean, position = P1): StatusEvent => ({
  type: 'batch_committed',
  events: 500,
  position,
  full,
  subscriptionCaughtUp,
});

describe('projection status', () => {
  it('starts, waits as standby, and runs once it holds the lock', () => {
    expect(run()).toMatchObject({ state: 'starting', leader: false, since: T0 });
    expect(run({ type: 'waiting_for_lock' })).toMatchObject({
      state: 'standby',
      leader: false,
      since: T1,
    });
    expect(run({ type: 'waiting_for_lock' }, { type: 'lock_acquired' })).toMatchObject({
      state: 'running',
      leader: true,
    });
  });

  it('is running while catching up and caught up after a batch cut short at the end', () => {
    const catchingUp = run(
      { type: 'lock_acquired' },
      committed(true, false),
      committed(false, false, P2),
    );
    expect(catchingUp).toMatchObject({ state: 'running', position: P2, eventsApplied: 1000 });
    const caughtUp = nextStatus(catchingUp, committed(false, true, P9), T1);
    expect(caughtUp).toMatchObject({
      state: 'caught_up',
      position: P9,
      lagEvents: 0,
      lagSeconds: 0,
    });
    // A burst after catching up: full batches mean it is behind again.
    expect(nextStatus(caughtUp, committed(true, true, P9), T1).state).toBe('running');
  });

  it('is caught up on an empty log once the subscription says so, only as leader', () => {
    expect(run({ type: 'lock_acquired' }, { type: 'caught_up' }).state).toBe('caught_up');
    expect(run({ type: 'waiting_for_lock' }, { type: 'caught_up' }).state).toBe('standby');
  });

  it('stops on a failure, keeps the error, and ignores everything but restart and close', () => {
    const stopped = run({ type: 'lock_acquired' }, committed(true, false), {
      type: 'failed',
      error: failure,
    });
    expect(stopped).toMatchObject({
      state: 'stopped',
      leader: false,
      error: failure,
      position: P1,
    });
    for (const event of [
      { type: 'lock_acquired' },
      { type: 'caught_up' },
      committed(false, true, P9),
      { type: 'waiting_for_lock' },
    ] satisfies StatusEvent[]) {
      expect(nextStatus(stopped, event, T1)).toBe(stopped);
    }
    const restarted = nextStatus(stopped, { type: 'restarted' }, T1);
    expect(restarted).toMatchObject({ state: 'starting', error: null });
  });

  it('goes back to standby when the lock is lost, saying why', () => {
    expect(
      run({ type: 'lock_acquired' }, { type: 'lock_lost', reason: 'connection lost' }),
    ).toMatchObject({
      state: 'standby',
      leader: false,
      retrying: 'connection lost',
    });
  });

  it('clears a retry note when a batch commits', () => {
    const status = run({ type: 'lock_acquired' }, { type: 'retrying', reason: 'ECONNREFUSED' });
    expect(status.retrying).toBe('ECONNREFUSED');
    expect(nextStatus(status, committed(true, false), T1).retrying).toBeNull();
  });

  it('takes lag from probes, but not once the checkpoint passed the probed head', () => {
    const probe: StatusEvent = {
      type: 'lag_probed',
      position: P1,
      headPosition: P2,
      lagEvents: 1,
      lagSeconds: 4.5,
      error: null,
    };
    expect(run({ type: 'waiting_for_lock' }, probe)).toMatchObject({
      position: P1,
      headPosition: P2,
      lagEvents: 1,
      lagSeconds: 4.5,
    });
    const ahead = run({ type: 'lock_acquired' }, committed(false, true, P9), probe);
    expect(ahead).toMatchObject({ position: P9, lagEvents: 0, lagSeconds: 0 });
  });

  it("shows another process's recorded failure on a standby", () => {
    const probe: StatusEvent = {
      type: 'lag_probed',
      position: P1,
      headPosition: P2,
      lagEvents: 1,
      lagSeconds: 1,
      error: failure,
    };
    expect(run({ type: 'waiting_for_lock' }, probe).error).toEqual(failure);
  });

  it('is closed for good', () => {
    const closed = run({ type: 'lock_acquired' }, { type: 'closed' });
    expect(closed).toMatchObject({ state: 'closed', leader: false });
    expect(nextStatus(closed, { type: 'restarted' }, T1)).toBe(closed);
    expect(run({ type: 'failed', error: failure }, { type: 'closed' }).state).toBe('closed');
  });
});
