import { evolveNode, initialNodeState } from '../decide.js';
import type { MigrationSet } from '../../database/migrate.js';
import type { NodeContent } from '../content.js';
import { NODE_EVENT_TYPES, NODE_STREAM_PREFIX, nodeStreamId, parseNodeEvent } from '../events.js';
import { parseSourceEvent, SOURCE_EVENT_TYPES, SOURCE_STREAM_PREFIX } from '../sources.js';
import { labelSpec } from '../vocabulary.js';
import type { Position, RecordedEvent } from '../../event-store/types.js';
import {
  deleteResources,
  collectionUri,
  resourcesTable,
  resourceUri,
  writeResources,
  type ResourceWrite,
} from '../../../projections/resources.js';
import type {
  Projection,
  ProjectionTransaction,
  ResourceChanges,
} from '../../../projections/types.js';

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
  allEvents: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<ResourceChanges> => {
  await applySourceEvents(
    allEvents.filter((event) => event.streamId.startsWith(SOURCE_STREAM_PREFIX)),
    tx,
  );
  const events = allEvents.filter((event) => event.streamId.startsWith(NODE_STREAM_PREFIX));
  if (events.length === 0) return { uris: [], collections: [] };
  const after = new Map<string, NodeAfterBatch>();
  for (const recorded of events) {
    const event = parseNodeEvent(recorded.type, recorded.data);
    if (recorded.streamId !== nodeStreamId(event.data.uid)) {
      throw new Error(
        `${recorded.type} names node ${event.data.uid} but is stored on stream ${recorded.streamId}`,
      );
    }
    // Each event carries the node's whole content, so the slice's fold of it alone is the node.
    const folded = evolveNode(initialNodeState(event.data.uid), event);
    after.set(event.data.uid, {
      content: event.data.content,
      contentHash: event.data.contentHash,
      live: folded.live,
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
      source: content.source ?? null,
      path: content.path ?? null,
      page: content.page ?? null,
      sections: content.sections ?? null,
      content_hash: contentHash,
      last_modified: at,
      revision: revision.toString(),
      position,
    }));
    await tx.query(
      `INSERT INTO catalog_nodes (uid, label, title, summary, body, product, monikers, attributes,
                                  source_path, source, path, page, sections, content_hash,
                                  last_modified, revision, position)
       SELECT uid, label, title, summary, body, product, monikers, attributes,
              source_path, source, path, page, sections, content_hash,
              last_modified, revision, position
         FROM jsonb_populate_recordset(NULL::catalog_nodes, $1::jsonb)
       ON CONFLICT (uid) DO UPDATE SET
         label = EXCLUDED.label, title = EXCLUDED.title, summary = EXCLUDED.summary,
         body = EXCLUDED.body, product = EXCLUDED.product, monikers = EXCLUDED.monikers,
         attributes = EXCLUDED.attributes, source_path = EXCLUDED.source_path,
         source = EXCLUDED.source, path = EXCLUDED.path, page = EXCLUDED.page,
         sections = EXCLUDED.sections,
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
        anchor: edge.anchor ?? null,
      })),
    );
    if (edges.length > 0) {
      await tx.query(
        `INSERT INTO catalog_edges (source_uid, edge_type, target_uid, ordinal, origin, anchor)
         SELECT source_uid, edge_type, target_uid, ordinal, origin, anchor
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
  await deleteResources(
    tx,
    CATALOG_PROJECTION,
    removed.map((content) => catalogNodeUri(content.label, content.uid)),
  );
  return {
    uris: [
      ...written.uris,
      ...removed.map((content) => catalogNodeUri(content.label, content.uid)),
    ],
    products: {
      ...written.products,
      ...Object.fromEntries(
        removed.map((content) => [catalogNodeUri(content.label, content.uid), content.product]),
      ),
    },
    collections: [
      ...new Set([
        ...written.collections,
        ...removed.map((content) => collectionUri(catalogResourceType(content.label))),
      ]),
    ],
  };
};

/** One row per live source: its last ingest's record; a removal deletes it. */
const applySourceEvents = async (
  events: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<void> => {
  for (const recorded of events) {
    const event = parseSourceEvent(recorded.type, recorded.data);
    switch (event.type) {
      case 'SourceRemoved':
        await tx.query('DELETE FROM catalog_sources WHERE name = $1', [event.data.source]);
        continue;
      case 'SourceIngested':
        break;
      default:
        event satisfies never;
    }
    const d = event.data;
    await tx.query(
      `INSERT INTO catalog_sources (name, root, generator, base_url, versions, latest, nodes, pages,
                                    last_ingested_at, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (name) DO UPDATE SET
         root = EXCLUDED.root, generator = EXCLUDED.generator, base_url = EXCLUDED.base_url,
         versions = EXCLUDED.versions, latest = EXCLUDED.latest, nodes = EXCLUDED.nodes,
         pages = EXCLUDED.pages, last_ingested_at = EXCLUDED.last_ingested_at,
         position = EXCLUDED.position`,
      [
        d.source,
        d.root,
        d.generator,
        d.baseUrl,
        d.versions,
        d.latest,
        d.nodes,
        d.pages,
        recorded.metadata.at,
        recorded.position,
      ],
    );
  }
};

/**
 * The catalog read model: `catalog_nodes`, `catalog_edges`, `catalog_sources` and the nodes'
 * resources.
 */
export const catalogProjection: Projection = {
  name: CATALOG_PROJECTION,
  filter: {
    streamPrefixes: [NODE_STREAM_PREFIX, SOURCE_STREAM_PREFIX],
    eventTypes: [...NODE_EVENT_TYPES, ...SOURCE_EVENT_TYPES],
  },
  migrations: catalogMigrations,
  tables: [
    { name: 'catalog_nodes', orderBy: ['uid'] },
    { name: 'catalog_edges', orderBy: ['source_uid', 'edge_type', 'target_uid'] },
    { name: 'catalog_sources', orderBy: ['name'] },
    resourcesTable(CATALOG_PROJECTION),
  ],
  apply,
};
