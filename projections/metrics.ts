import { createHistogram, type Histogram, type MetricFamily, type Sample } from './prometheus.js';
import { PROJECTION_STATES, type ProjectionStatus } from './types.js';

/** Batch durations from 1 ms to 30 s: a live batch takes milliseconds, a stuck one seconds. */
export const BATCH_DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

/** Counters of this process per projection; gauges come from the statuses when rendered. */
export interface ProjectionMetrics {
  batchCommitted(projection: string, events: number, seconds: number): void;
  failed(projection: string): void;
  families(statuses: readonly ProjectionStatus[]): MetricFamily[];
}

interface Counters {
  events: number;
  batches: number;
  failures: number;
  durations: Histogram;
}

export const createProjectionMetrics = (): ProjectionMetrics => {
  const byProjection = new Map<string, Counters>();
  const countersOf = (projection: string): Counters => {
    let counters = byProjection.get(projection);
    if (!counters) {
      counters = {
        events: 0,
        batches: 0,
        failures: 0,
        durations: createHistogram(BATCH_DURATION_BUCKETS),
      };
      byProjection.set(projection, counters);
    }
    return counters;
  };

  return {
    batchCommitted: (projection, events, seconds) => {
      const counters = countersOf(projection);
      counters.events += events;
      counters.batches += 1;
      counters.durations.observe(seconds);
    },
    failed: (projection) => {
      countersOf(projection).failures += 1;
    },
    families: (statuses) => {
      const per = (
        value: (status: ProjectionStatus, counters: Counters) => number | null,
      ): Sample[] =>
        statuses.flatMap((status) => {
          const sample = value(status, countersOf(status.name));
          return sample === null ? [] : [{ labels: { projection: status.name }, value: sample }];
        });
      return [
        {
          name: 'cogitave_projection_events_applied_total',
          help: 'Events applied by this process, per projection.',
          type: 'counter',
          samples: per((_, counters) => counters.events),
        },
        {
          name: 'cogitave_projection_batches_total',
          help: 'Batches committed by this process, per projection.',
          type: 'counter',
          samples: per((_, counters) => counters.batches),
        },
        {
          name: 'cogitave_projection_failures_total',
          help: 'Handler failures that stopped the projection in this process.',
          type: 'counter',
          samples: per((_, counters) => counters.failures),
        },
        {
          name: 'cogitave_projection_batch_duration_seconds',
          help: 'Time to apply and commit one batch (rows, checkpoint and notification).',
          type: 'histogram',
          samples: statuses.flatMap((status) =>
            countersOf(status.name).durations.samples({ projection: status.name }),
          ),
        },
        {
          name: 'cogitave_projection_lag_events',
          help: 'Events of the projection after its checkpoint (capped by the lag probe).',
          type: 'gauge',
          samples: per((status) => status.lagEvents),
        },
        {
          name: 'cogitave_projection_lag_seconds',
          help: 'Age of the oldest event not yet applied, by its metadata time; 0 when caught up.',
          type: 'gauge',
          samples: per((status) => status.lagSeconds),
        },
        {
          name: 'cogitave_projection_leader',
          help: '1 when this process holds the projection lock and applies it.',
          type: 'gauge',
          samples: per((status) => (status.leader ? 1 : 0)),
        },
        {
          name: 'cogitave_projection_status',
          help: 'Current state of the projection in this process (1 for the current state).',
          type: 'gauge',
          samples: statuses.flatMap((status) =>
            PROJECTION_STATES.map((state) => ({
              labels: { projection: status.name, state },
              value: status.state === state ? 1 : 0,
            })),
          ),
        },
        {
          name: 'cogitave_projection_last_batch_timestamp_seconds',
          help: 'Unix time of the last batch this process committed.',
          type: 'gauge',
          samples: per((status) =>
            status.lastBatchAt === null ? null : Date.parse(status.lastBatchAt) / 1000,
          ),
        },
      ];
    },
  };
};
