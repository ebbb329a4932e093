import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { ingestDefaultCorpusOnStart } from '../../../services/catalog/start-up.js';
import type { StartUpState } from '../../../mcp-gateway/start-up.js';
import type { Position } from '../../../services/event-store/types.js';
import type { App } from '../../app.js';
import type { ServedPart } from './parts.js';

/** How long start-up waits for the catalog read model to apply the ingested corpus. */
const CATALOG_PROJECTED_MS = 120_000;
/** After that, readiness keeps waiting in slices this long (so a shutdown is not held up). */
const CATALOG_WAIT_SLICE_MS = 1_000;

export interface ProjectorPart extends ServedPart {
  /** Resolves once the start-up ingest ended and the catalog read model has applied it. */
  readonly catalogReady: Promise<void>;
}

/**
 * The read side: the projection runner (each projection applied by whichever process holds
 * its advisory lock; the others stand by) and the catalog start-up ingest.
 */
export const projectorPart = (app: App, startUp?: StartUpState): ProjectorPart => {
  const { projections, logger } = app;
  // What MCP calls wait for while the catalog is ingested and applied (start-up.ts).
  const step = startUp?.step('catalog', 'ingesting');
  // The shipped corpus (or CATALOG_DIR) is ingested once the process serves: the first start
  // compiles the TypeScript samples (seconds), later starts append nothing. A corpus with
  // errors appends nothing and is logged; the catalog there already is is served.
  let catalogIngest: Promise<unknown> = Promise.resolve();
  let stopping = false;
  let catalogState: 'ingesting' | 'projecting' | 'ready' = 'ingesting';
  let openCatalog: () => void = () => undefined;
  const catalogReady = new Promise<void>((resolve) => {
    openCatalog = resolve;
  });
  /**
   * Whether the catalog read model applied `position` within `timeoutMs`, waiting in slices
   * so that start-up progress shows how many events it still has to apply.
   */
  const projected = async (position: Position, timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    let total = 0;
    for (;;) {
      const lag = projections
        .status()
        .find((status) => status.name === catalogProjection.name)?.lagEvents;
      if (lag !== undefined && lag !== null) {
        total = Math.max(total, lag);
        step?.report('projecting', total - lag, total);
      }
      const slice = Math.max(1, Math.min(CATALOG_WAIT_SLICE_MS, deadline - Date.now()));
      if (await app.changes.waitForPosition(catalogProjection.name, position, { timeoutMs: slice }))
        return true;
      if (stopping || Date.now() >= deadline) return false;
    }
  };
  const ingestThenProject = async (): Promise<void> => {
    await ingestDefaultCorpusOnStart(app, (done, total) => {
      step?.report('ingesting', done, total);
    }).catch((error: unknown) => {
      logger.error({ err: error }, 'catalog start-up ingest failed; nothing was appended');
    });
    catalogState = 'projecting';
    step?.report('projecting');
    // The newest catalog event, ingested now or before: the read model must have applied it.
    const [newest] = await app.eventStore.readAll({
      direction: 'backwards',
      maxCount: 1,
      filter: catalogProjection.filter,
    });
    if (newest && !(await projected(newest.position, CATALOG_PROJECTED_MS))) {
      // The search index is built from what the read model holds and follows it from
      // there, but the catalog is not ready (nor /readyz, nor MCP) until it holds the whole log.
      logger.warn(
        'the catalog read model is still catching up; readiness and MCP calls wait for it',
      );
      openCatalog();
      await projected(newest.position, Number.POSITIVE_INFINITY);
    }
  };
  return {
    catalogReady,
    routes: [],
    readiness: [
      {
        name: 'catalog',
        probe: async () => {
          await Promise.resolve();
          if (catalogState === 'ready') return true;
          throw new Error(
            catalogState === 'ingesting'
              ? 'still starting: ingesting the catalog (CATALOG_DIR or the shipped corpus)'
              : 'still starting: the catalog read model is applying the ingested corpus',
          );
        },
      },
    ],
    // Not ready once a read model has stopped on an event it cannot apply.
    projections: () => projections.status(),
    metrics: () => projections.renderPrometheus(),
    describe: { projections: projections.status().map((status) => status.name) },
    start: () => {
      projections.start();
      catalogIngest = ingestThenProject()
        .catch((error: unknown) => {
          logger.error({ err: error }, 'catalog start-up did not finish');
        })
        .finally(() => {
          catalogState = 'ready';
          openCatalog();
          step?.done();
        });
    },
    started: () => catalogReady,
    drain: () => Promise.resolve(),
    close: async () => {
      stopping = true;
      await catalogIngest;
      await projections.stop();
    },
  };
};
