import type { HttpRoute, PublicUrls, ReadinessCheck } from '../../../mcp-gateway/http/server.js';
import type { ProjectionStatus } from '../../../projections/index.js';

/**
 * What one part of the product (gateway, projector, reactor) adds to a `serve` process: its
 * routes, its readiness checks, its background work and how it stops. A role is a set of
 * parts; `all` is every part in one process.
 */
export interface ServedPart {
  readonly routes: readonly HttpRoute[];
  readonly readiness: readonly ReadinessCheck[];
  /** The read models listed by /readyz (the projector only). */
  readonly projections?: () => readonly ProjectionStatus[];
  /** Prometheus text after the process basics. */
  readonly metrics?: () => string;
  /** Fields of the `cogitave ready` log line. */
  readonly describe: Readonly<Record<string, unknown>>;
  /** More fields of that line, once the server's URLs are known (the console's link). */
  readonly announce?: (urls: PublicUrls) => Readonly<Record<string, unknown>>;
  /** Starts the background work; called once the process serves its endpoints. */
  start(): void;
  /**
   * Resolves once, after `start`, the part's tools can answer (the catalog ingested, the
   * search index built): the `cogitave ready` line waits for it. Absent: ready at start.
   */
  started?(): Promise<void>;
  /** Stops accepting work (open MCP sessions end) before the HTTP server closes. */
  drain(): Promise<void>;
  /** Releases what the part built; the App closes the rest. */
  close(): Promise<void>;
}

export const mergeParts = (parts: readonly ServedPart[]): ServedPart => {
  const projections = parts.flatMap((part) => (part.projections ? [part.projections] : []));
  const metrics = parts.flatMap((part) => (part.metrics ? [part.metrics] : []));
  const announcers = parts.flatMap((part) => (part.announce ? [part.announce] : []));
  return {
    routes: parts.flatMap((part) => part.routes),
    readiness: parts.flatMap((part) => part.readiness),
    ...(projections.length > 0 ? { projections: () => projections.flatMap((list) => list()) } : {}),
    ...(metrics.length > 0 ? { metrics: () => metrics.map((render) => render()).join('') } : {}),
    describe: Object.assign({}, ...parts.map((part) => part.describe)) as Record<string, unknown>,
    announce: (urls) =>
      Object.assign({}, ...announcers.map((announce) => announce(urls))) as Record<string, unknown>,
    start: () => {
      for (const part of parts) part.start();
    },
    started: async () => {
      await Promise.all(parts.map((part) => part.started?.() ?? Promise.resolve()));
    },
    drain: async () => {
      for (const part of parts) await part.drain();
    },
    close: async () => {
      // Reverse order: what started last stops first.
      for (const part of [...parts].reverse()) await part.close();
    },
  };
};
