/** The read side's public surface, for the composition root and the gateway. */
export {
  createProjectionRunner,
  projectionMigrationSets,
  type ProjectionRunner,
  type ProjectionRunnerOptions,
} from './runner.js';
export {
  createChangeFeed,
  type ChangeFeed,
  type ChangeFeedOptions,
  type ChangeListener,
  type ChangeSignal,
} from './change-feed.js';
export {
  buildChangePayload,
  CHANGE_CHANNEL,
  collectionOf,
  parseChangePayload,
  type ChangeNotice,
} from './change-payload.js';
export { projectionMigrations, readCheckpoint, type Checkpoint } from './checkpoints.js';
export { createShadowTables, digestTables, resetProjection, type TableDigest } from './digest.js';
export { replayProjection, type ReplayOptions, type ReplayResult } from './replay.js';
export {
  createLabelledCounter,
  gaugeFamily,
  renderPrometheus,
  type MetricFamily,
} from './prometheus.js';
export {
  collectionUri,
  getResource,
  listResources,
  resourceContentHash,
  resourceUri,
  type ListResourcesOptions,
  type ResourceEntry,
} from './resources.js';
export {
  READ_MODEL_SCHEMA,
  type FailedEvent,
  type Projection,
  type ProjectionState,
  type ProjectionStatus,
  type ProjectionTable,
  type ProjectionTransaction,
  type ResourceChanges,
} from './types.js';
