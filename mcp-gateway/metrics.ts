import {
  createHistogram,
  createLabelledCounter,
  type Histogram,
} from '../projections/prometheus.js';
import type { MetricFamily } from '../projections/index.js';

/** How a tool call ended: a result, a tool error the model can act on, or our failure. */
export type ToolOutcome = 'ok' | 'tool_error' | 'internal_error';

/** Upper bounds (seconds) of the tool-call latency histogram. */
const LATENCY_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The MCP gateway's figures for /metrics, kept by one composition (no module state): tool
 * calls by tool and outcome with their latency, and the notifications sent by method. Names
 * are a closed set (registry tools and protocol methods), so label cardinality is bounded.
 */
export interface GatewayMetrics {
  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void;
  notificationSent(method: string): void;
  families(): MetricFamily[];
}

export const createGatewayMetrics = (): GatewayMetrics => {
  const calls = createLabelledCounter(
    'cogitave_mcp_tool_calls_total',
    'MCP tool calls by tool and outcome (ok, tool_error: isError for the model, internal_error).',
  );
  const latency = new Map<string, Histogram>();
  const notifications = createLabelledCounter(
    'cogitave_mcp_notifications_sent_total',
    'MCP notifications sent to clients by method (sessions, per-request streams and listen streams).',
  );
  return {
    toolCall: (tool, outcome, seconds) => {
      calls.inc({ tool, outcome });
      let histogram = latency.get(tool);
      if (!histogram) {
        histogram = createHistogram(LATENCY_BOUNDS);
        latency.set(tool, histogram);
      }
      histogram.observe(seconds);
    },
    notificationSent: (method) => {
      notifications.inc({ method });
    },
    families: () => [
      calls.family(),
      {
        name: 'cogitave_mcp_tool_call_duration_seconds',
        help: 'MCP tool call latency by tool, from the call to its result.',
        type: 'histogram',
        samples: [...latency.entries()].flatMap(([tool, histogram]) => histogram.samples({ tool })),
      },
      notifications.family(),
    ],
  };
};
