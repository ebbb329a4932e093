import { ingestDefaultCorpusOnStart } from '../../../services/catalog/start-up.js';
import type { App } from '../../app.js';
import type { ServedPart } from './parts.js';

/**
 * The read side: the projection runner (each projection applied by whichever process holds
 * its advisory lock; the others stand by) and the catalog start-up ingest.
 */
export const projectorPart = (app: App): ServedPart => {
  const { projections, logger } = app;
  // The shipped corpus (or CATALOG_DIR) is ingested beside serving, not before it: the first
  // start compiles the TypeScript samples (seconds), later starts append nothing. A corpus with
  // errors appends nothing and is logged; the gateways serve the catalog there already is.
  let catalogIngest: Promise<unknown> = Promise.resolve();
  return {
    routes: [],
    readiness: [],
    // Not ready once a read model has stopped on an event it cannot apply.
    projections: () => projections.status(),
    metrics: () => projections.renderPrometheus(),
    describe: { projections: projections.status().map((status) => status.name) },
    start: () => {
      projections.start();
      catalogIngest = ingestDefaultCorpusOnStart(app).catch((error: unknown) => {
        logger.error({ err: error }, 'catalog start-up ingest failed; nothing was appended');
      });
    },
    drain: () => Promise.resolve(),
    close: async () => {
      await catalogIngest;
      await projections.stop();
    },
  };
};
