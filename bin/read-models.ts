import { catalogProjection } from '../services/catalog/read-model/projection.js';
import { networksProjection } from '../services/networks/read-model/projection.js';
import { requestsProjection } from '../services/requests/read-model/projection.js';
import type { Projection } from '../projections/types.js';

/**
 * The read models: every command migrates them, `serve` runs them, replay rebuilds them. One
 * list for all, in a module of its own so a rebuild worker thread loads the projections alone
 * rather than the whole composition root.
 */
export const PROJECTIONS: readonly Projection[] = [
  requestsProjection,
  networksProjection,
  catalogProjection,
];
