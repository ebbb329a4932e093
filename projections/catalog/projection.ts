import type { MigrationSet } from '../../services/database/migrate.js';
import type { NodeContent } from '../../services/catalog/content.js';
import {
  NODE_EVENT_TYPES,
  NODE_STREAM_PREFIX,
  nodeStreamId,
  parseNodeEvent,
} from '../../services/catalog/events.js';
import { labelSpec } from '../../services/catalog/vocabulary.js';
import type { Position, RecordedEvent } from '../../services/event-store/types.js';
import {
  collectionUri,
  resourcesTable,
  resourceUri,
  writeResources,
  type ResourceWrite,
} from '../resources.js';
import type { Projection, ProjectionTransaction, ResourceChanges } from '../types.js';

export const CATALOG_PROJECTION = 'catalog';

export const catalogMigrations: MigrationSet = {
  owner: 'projection-catalog',
  directory: new URL('./migrations/', import.meta.url),
};

/** The resource type of a label (`cogitave://unit/<uid>`); unknown labels fall back to lower case. */
export const catalogResourceType = (label: string): string =>
  labelSpec(label)?.resourceType ?? label.toLowerCase();

export const catalogNodeUri = (label: string, uid: string): string =>
  resourceUri(catalogResourceType(label), uid);

interface NodeAfterBatch {
  readonly content: NodeContent;
  readonly contentHash: string;
  readonly live: boolean;
  readonly at: string;
  readonly revision: bigint;
  readonly position: Position;
}

/**
 * A batch is folded in memory per node (the last event wins: every event carries the full
 * content), then written set-based: edges of touched nodes replaced, live nodes upserted,
 * retired nodes and their resources deleted.
 */
const apply = async (
  events: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<ResourceChanges> => {
  const after = new Map<string, NodeAfterBatch>();
  for (const recorded of events) {
    const event = parseNodeEvent(recorded.type, recorded.data);
    if (recorded.streamId !== nodeStreamId(event.data.uid)) {
      throw new Error(
        `${recorded.type} names node ${event.data.uid} but is stored on stream ${recorded.streamId}`,
      );
    }
    after.set(event.data.uid, {
      content: event.data.content,
      contentHash: event.data.contentHash,
      live: event.type !== 'NodeRetired',
      at: recorded.metadata.at,
      revision: recorded.revision,
      position: recorded.position,
    });
  }
  const touched = [...after.keys()];
  const existing = await tx.query<{ uid: string; label: string }>(
    'SELECT uid, label FROM catalog_nodes WHERE uid = ANY($1::text[])',
    [touched],
  );
  const previousLabel = new Map(existing.rows.map((row) => [row.uid, row.label]));
  const existed = new Set(previousLabel.keys());
  const live = [...after.values()].filter((node) => node.live);
  const retired = [...after.values()].filter((node) => !node.live);

  await tx.query('DELETE FROM catalog_edges WHERE source_uid = ANY($1::text[])', [touched]);
  if (retired.length > 0) {
    await tx.query('DELETE FROM catalog_nodes WHERE uid = ANY($1::text[])', [
      retired.map((node) => node.content.uid),
    ]);
  }
  if (live.length > 0) {
    const rows = live.map(({ content, contentHash, at, revision, position }) => ({
      uid: content.uid,
      label: content.label,
      title: content.title,
      summary: content.summary,
      body: content.body,
      product: content.product,
      monikers: content.monikers,
      attributes: content.attributes,
      source_path: content.sourcePath,
      content_hash: contentHash,
      last_modified: at,
      revision: revision.toString(),
      position,
    }));
    await tx.query(
      `INSERT INTO catalog_nodes (uid, label, title, summary, body, product, monikers, attributes,
                                  source_path, content_hash, last_modified, revision, position)
       SELECT uid, label, title, summary, body, product, monikers, attributes,
              source_path, content_hash, last_modified, revision, position
         FROM jsonb_populate_recordset(NULL::catalog_nodes, $1::jsonb)
       ON CONFLICT (uid) DO UPDATE SET
         label = EXCLUDED.label, title = EXCLUDED.title, summary = EXCLUDED.summary,
         body = EXCLUDED.body, product = EXCLUDED.product, monikers = EXCLUDED.monikers,
         attributes = EXCLUDED.attributes, source_path = EXCLUDED.source_path,
         content_hash = EXCLUDED.content_hash, last_modified = EXCLUDED.last_modified,
         revision = EXCLUDED.revision, position = EXCLUDED.position`,
      [JSON.stringify(rows)],
    );
    const edges = live.flatMap(({ content }) =>
      content.edges.map((edge) => ({
        source_uid: content.uid,
        edge_type: edge.type,
        target_uid: edge.target,
        ordinal: edge.ordinal,
        origin: edge.origin,
      })),
    );
    if (edges.length > 0) {
      await tx.query(
        `INSERT INTO catalog_edges (source_uid, edge_type, target_uid, ordinal, origin)
         SELECT source_uid, edge_type, target_uid, ordinal, origin
           FROM jsonb_populate_recordset(NULL::catalog_edges, $1::jsonb)
         ON CONFLICT (source_uid, edge_type, target_uid) DO NOTHING`,
        [JSON.stringify(edges)],
      );
    }
  }

  // The resource document is the node's canonical content, so its index hash is the node's.
  const writes: ResourceWrite[] = live.map(({ content, at, position }) => ({
    uri: catalogNodeUri(content.label, content.uid),
    type: catalogResourceType(content.label),
    product: content.product,
    title: content.title,
    document: content,
    lastModified: at,
    position,
    created: !existed.has(content.uid),
  }));
  const written = await writeResources(tx, CATALOG_PROJECTION, writes);
  // Retired nodes, and the old URI of a node whose label (so resource type) changed.
  const removed = [
    ...retired.filter((node) => existed.has(node.content.uid)).map((node) => node.content),
    ...live
      .filter((node) => {
        const before = previousLabel.get(node.content.uid);
        return before !== undefined && before !== node.content.label;
      })
      .map((node) => ({ ...node.content, label: previousLabel.get(node.content.uid) ?? '' })),
  ];
  if (removed.length > 0) {
    await tx.query('DELETE FROM resources WHERE projection = $1 AND uri = ANY($2::text[])', [
      CATALOG_PROJECTION,
      removed.map((content) => catalogNodeUri(content.label, content.uid)),
    ]);
  }
  return {
    uris: [
      ...written.uris,
      ...removed.map((content) => catalogNodeUri(content.label, content.uid)),
    ],
    collections: [
      ...new Set([
        ...written.collections,
        ...removed.map((content) => collectionUri(catalogResourceType(content.label))),
      ]),
    ],
  };
};

/** The catalog read model: `catalog_nodes`, `catalog_edges` and the nodes' resources. */
export const catalogProjection: Projection = {
  name: CATALOG_PROJECTION,
  filter: { streamPrefixes: [NODE_STREAM_PREFIX], eventTypes: NODE_EVENT_TYPES },
  migrations: catalogMigrations,
  tables: [
    { name: 'catalog_nodes', orderBy: ['uid'] },
    { name: 'catalog_edges', orderBy: ['source_uid', 'edge_type', 'target_uid'] },
    resourcesTable(CATALOG_PROJECTION),
  ],
  apply,
};
