import { describe, expect, it } from 'vitest';
import { createProjectionMetrics } from '../../../projections/metrics.js';
import { createHistogram, formatValue, renderPrometheus } from '../../../projections/prometheus.js';
import { initialStatus, nextStatus } from '../../../projections/status.js';
import type { Position } from '../../../services/event-store/types.js';

describe('renderPrometheus', () => {
  it('writes HELP and TYPE once per family, then its samples, ending with a newline', () => {
    const text = renderPrometheus([
      {
        name: 'jobs_total',
        help: 'Jobs done.',
        type: 'counter',
        samples: [
          { labels: { queue: 'a' }, value: 3 },
          { labels: { queue: 'b' }, value: 0 },
        ],
      },
      { name: 'temperature', help: 'Now.', type: 'gauge', samples: [{ value: 21.5 }] },
    ]);
    expect(text).toBe(
      [
        '# HELP jobs_total Jobs done.',
        '# TYPE jobs_total counter',
        'jobs_total{queue="a"} 3',
        'jobs_total{queue="b"} 0',
        '# HELP temperature Now.',
        '# TYPE temperature gauge',
        'temperature 21.5',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and help text', () => {
    const text = renderPrometheus([
      {
        name: 'm',
        help: 'a \\ b\nc',
        type: 'gauge',
        samples: [{ labels: { v: 'q"\\\n' }, value: 1 }],
      },
    ]);
    expect(text).toBe('# HELP m a \\\\ b\\nc\n# TYPE m gauge\nm{v="q\\"\\\\\\n"} 1\n');
  });

  it('writes special values as the format spells them', () => {
    expect([Infinity, -Infinity, NaN, 0.25, 1e21].map(formatValue)).toEqual([
      '+Inf',
      '-Inf',
      'NaN',
      '0.25',
      '1e+21',
    ]);
  });

  it('refuses invalid names and repeated families', () => {
    expect(() =>
      renderPrometheus([{ name: '1bad', help: '', type: 'gauge', samples: [] }]),
    ).toThrow(RangeError);
    expect(() =>
      renderPrometheus([
        {
          name: 'ok',
          help: '',
          type: 'gauge',
          samples: [{ labels: { 'bad-label': 'x' }, value: 1 }],
        },
      ]),
    ).toThrow(RangeError);
    expect(() =>
      renderPrometheus([
        {
          name: 'ok',
          help: '',
          type: 'gauge',
          samples: [{ labels: { __reserved: 'x' }, value: 1 }],
        },
      ]),
    ).toThrow(RangeError);
    const family = { name: 'ok', help: '', type: 'gauge' as const, samples: [] };
    expect(() => renderPrometheus([family, family])).toThrow(RangeError);
    expect(renderPrometheus([])).toBe('');
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', () => {
    const histogram = createHistogram([0.1, 1, 0.5]);
    for (const value of [0.05, 0.3, 0.7, 2]) histogram.observe(value);
    const text = renderPrometheus([
      { name: 'd_seconds', help: 'D.', type: 'histogram', samples: histogram.samples({ p: 'x' }) },
    ]);
    expect(text).toBe(
      [
        '# HELP d_seconds D.',
        '# TYPE d_seconds histogram',
        'd_seconds_bucket{p="x",le="0.1"} 1',
        'd_seconds_bucket{p="x",le="0.5"} 2',
        'd_seconds_bucket{p="x",le="1"} 3',
        'd_seconds_bucket{p="x",le="+Inf"} 4',
        'd_seconds_sum{p="x"} 3.05',
        'd_seconds_count{p="x"} 4',
        '',
      ].join('\n'),
    );
  });
});

describe('projection metrics', () => {
  const P = '0000000000000001-0000000000000001' as Position;
  const T = '2026-01-05T09:00:00.000Z';

  it('exposes counters, the batch histogram, lag, leadership and the state set', () => {
    const metrics = createProjectionMetrics();
    metrics.batchCommitted('requests', 500, 0.02);
    metrics.batchCommitted('requests', 20, 0.004);
    metrics.failed('requests');
    let status = initialStatus('requests', T);
    status = nextStatus(status, { type: 'lock_acquired' }, T);
    status = nextStatus(
      status,
      {
        type: 'batch_committed',
        events: 520,
        position: P,
        full: false,
        subscriptionCaughtUp: true,
      },
      T,
    );
    const idle = initialStatus('catalog', T);
    const text = renderPrometheus(metrics.families([status, idle]));
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE cogitave_projection_events_applied_total counter',
        'cogitave_projection_events_applied_total{projection="requests"} 520',
        'cogitave_projection_events_applied_total{projection="catalog"} 0',
        'cogitave_projection_batches_total{projection="requests"} 2',
        'cogitave_projection_failures_total{projection="requests"} 1',
        '# TYPE cogitave_projection_batch_duration_seconds histogram',
        'cogitave_projection_batch_duration_seconds_bucket{projection="requests",le="0.005"} 1',
        'cogitave_projection_batch_duration_seconds_bucket{projection="requests",le="0.025"} 2',
        'cogitave_projection_batch_duration_seconds_bucket{projection="requests",le="+Inf"} 2',
        'cogitave_projection_batch_duration_seconds_count{projection="requests"} 2',
        'cogitave_projection_lag_events{projection="requests"} 0',
        'cogitave_projection_lag_seconds{projection="requests"} 0',
        'cogitave_projection_leader{projection="requests"} 1',
        'cogitave_projection_leader{projection="catalog"} 0',
        'cogitave_projection_status{projection="requests",state="caught_up"} 1',
        'cogitave_projection_status{projection="requests",state="running"} 0',
        'cogitave_projection_status{projection="catalog",state="starting"} 1',
        `cogitave_projection_last_batch_timestamp_seconds{projection="requests"} ${Date.parse(T) / 1000}`,
      ]),
    );
    // Unknown lag is left out rather than reported as 0.
    expect(text).not.toContain('cogitave_projection_lag_events{projection="catalog"}');
    expect(lines.filter((line) => line.startsWith('# HELP'))).toHaveLength(9);
  });
});
