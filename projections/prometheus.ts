/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: a few metric
 * families do not justify a client library, and rendering is pure, so it is tested exactly.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram';

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** Appended to the family name: `_bucket`, `_sum`, `_count` for histograms. */
  readonly suffix?: string;
  readonly labels?: Labels;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

const escapeLabelValue = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export const formatValue = (value: number): string => {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
};

const formatLabels = (labels: Labels | undefined): string => {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  for (const [name] of entries) {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) {
      throw new RangeError(`"${name}" is not a valid Prometheus label name`);
    }
  }
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
};

/** Renders metric families; the result ends with a newline, as the format requires. */
export const renderPrometheus = (families: readonly MetricFamily[]): string => {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) {
      throw new RangeError(`"${family.name}" is not a valid Prometheus metric name`);
    }
    if (seen.has(family.name)) throw new RangeError(`metric family "${family.name}" appears twice`);
    seen.add(family.name);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      lines.push(
        `${family.name}${sample.suffix ?? ''}${formatLabels(sample.labels)} ${formatValue(sample.value)}`,
      );
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
};

/** A gauge family of one unlabelled value. */
export const gaugeFamily = (name: string, help: string, value: number): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  samples: [{ value }],
});

/** A counter family keyed by its label values, counted in memory. */
export interface LabelledCounter {
  inc(labels: Labels): void;
  family(): MetricFamily;
}

export const createLabelledCounter = (name: string, help: string): LabelledCounter => {
  const counts = new Map<string, { labels: Labels; value: number }>();
  return {
    inc: (labels) => {
      const key = JSON.stringify(Object.entries(labels));
      const entry = counts.get(key);
      if (entry) entry.value += 1;
      else counts.set(key, { labels: { ...labels }, value: 1 });
    },
    family: () => ({
      name,
      help,
      type: 'counter',
      samples: [...counts.values()].map(({ labels, value }) => ({ labels, value })),
    }),
  };
};

/** Cumulative histogram with fixed upper bounds (seconds). */
export interface Histogram {
  observe(value: number): void;
  samples(labels: Labels): Sample[];
}

export const createHistogram = (bounds: readonly number[]): Histogram => {
  const sorted = [...bounds].sort((a, b) => a - b);
  const counts = sorted.map(() => 0);
  let count = 0;
  let sum = 0;
  return {
    observe: (value) => {
      count += 1;
      sum += value;
      sorted.forEach((bound, index) => {
        if (value <= bound) counts[index] = (counts[index] ?? 0) + 1;
      });
    },
    samples: (labels) => [
      ...sorted.map((bound, index) => ({
        suffix: '_bucket',
        labels: { ...labels, le: formatValue(bound) },
        value: counts[index] ?? 0,
      })),
      { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: count },
      { suffix: '_sum', labels, value: sum },
      { suffix: '_count', labels, value: count },
    ],
  };
};
