import { catalogProjection } from './catalog/projection.js';
import { networksProjection } from './networks/projection.js';
import { requestsProjection } from './requests/projection.js';
import type { Projection } from './types.js';

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
