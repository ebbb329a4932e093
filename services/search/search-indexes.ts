import type { Queryable } from '../database/queryable.js';
import type { Logger } from '../runtime/logger.js';
import {
  loadAllCatalogEdges,
  loadAllCatalogNodes,
  loadCatalogEdges,
  loadCatalogNodes,
  type NodeKind,
} from '../catalog/read-model/search-queries.js';
import { toRetrievalDocument, type CatalogEdge, type CatalogNode } from './documents.js';
import type { Embedder } from './embedder.js';
import { createEntryStore, type EntryStore } from './entries.js';
import type { GraphEdge } from './graph.js';
import { passageOffsets } from './pages.js';
import type { HybridRetriever, RetrievalDocument } from './retriever.js';
import { partitionOf } from './search-partitions.js';

/** Texts kept between two yields to the event loop (each deflates a page). */
const TEXT_SLICE = 128;
const KINDS = ['docs', 'samples'] as const;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const toGraphEdges = (edges: readonly CatalogEdge[]): GraphEdge[] =>
  edges.map((edge) => ({ source: edge.sourceUid, target: edge.targetUid, type: edge.edgeType }));

export const kindOf = (label: string): NodeKind => (label === 'CodeSample' ? 'samples' : 'docs');

export interface SearchIndexesOptions {
  readonly db: Queryable;
  readonly logger: Logger;
  readonly retrievers: Readonly<Record<NodeKind, HybridRetriever>>;
  readonly embedders: Readonly<Record<NodeKind, Embedder>>;
  /** Refit the corpus-derived embedding once this share of documents changed. */
  readonly refitDrift: number;
}

/**
 * The two indexes (docs, code samples) and the entries hits answer with, built from the
 * catalog's read model and updated from it. Every mutation runs on one chain, so batches
 * apply in order and never interleave; a search sees the indexes between batches.
 */
export class SearchIndexes {
  readonly store: EntryStore = createEntryStore();
  readonly built: Record<NodeKind, boolean> = { docs: false, samples: false };
  /** Whether the samples' index was asked for (then it is built and kept current). */
  samplesWanted = false;
  #closed = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: SearchIndexesOptions) {}

  get retrievers(): Readonly<Record<NodeKind, HybridRetriever>> {
    return this.options.retrievers;
  }

  /** Runs `work` after every update enqueued before it (not at all once closed). */
  enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(async () => {
      if (!this.#closed) await work();
    });
    this.#chain = next.catch((error: unknown) => {
      this.options.logger.error(
        { err: error },
        'search index update failed; next change or resync retries',
      );
    });
    return next;
  }

  /** Resolves once every update enqueued so far ran (an update may enqueue a follow-up). */
  async settled(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.#chain;
      await current;
    } while (current !== this.#chain);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#chain;
  }

  /** A node as its index takes it. */
  document(node: CatalogNode): RetrievalDocument {
    return {
      ...toRetrievalDocument(node),
      secondary: this.store.role(node.uid) === 'older',
      partition: partitionOf(node.label, node.product),
      // A page's passages are its sections, so a hit's best section comes from the index.
      ...(node.label === 'CodeSample'
        ? {}
        : { passages: { field: 'body', offsets: passageOffsets(node.sections) } }),
    };
  }

  /** Rebuilds one index from the whole read model. */
  async reloadKind(kind: NodeKind): Promise<void> {
    const { db, logger, retrievers } = this.options;
    const { store } = this;
    const started = Date.now();
    const [nodes, edges] = await Promise.all([
      loadAllCatalogNodes(db, kind),
      loadAllCatalogEdges(db),
    ]);
    const present = new Set(nodes.map((node) => node.uid));
    for (const [uid, entry] of store.entries()) {
      if (kindOf(entry.label) === kind && !present.has(uid)) store.delete(uid);
    }
    for (const node of nodes) store.set(node.uid, node);
    const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
    const rebuilt = retrievers[kind].rebuild(
      nodes.map((node) => this.document(node)),
      toGraphEdges(own),
    );
    // Awaited below; meanwhile the texts are kept, in slices that let searches through.
    rebuilt.catch(() => undefined);
    for (let i = 0; i < nodes.length; i += 1) {
      const node = nodes[i] as CatalogNode;
      store.setText(node.uid, node);
      if (i % TEXT_SLICE === TEXT_SLICE - 1) await yieldToEventLoop();
    }
    await rebuilt;
    this.built[kind] = true;
    logger.info(
      {
        index: kind,
        documents: nodes.length,
        edges: own.length,
        ms: Date.now() - started,
        embedder: retrievers[kind].embedderName,
        lexical: retrievers[kind].lexicalStats(),
      },
      'search index built',
    );
  }

  /** Rebuilds the docs' index, and the samples' when it was asked for. */
  async reloadAll(): Promise<void> {
    await this.reloadKind('docs');
    if (this.samplesWanted) await this.reloadKind('samples');
    else {
      // Not built until asked for: forget any samples folded in by a change meanwhile.
      for (const [uid, entry] of this.store.entries()) {
        if (kindOf(entry.label) === 'samples') this.store.delete(uid);
      }
      this.built.samples = false;
    }
  }

  /** Re-reads changed nodes (missing ones are removed) and their outbound edges. */
  async reload(uids: readonly string[]): Promise<void> {
    if (!this.built.docs) {
      await this.reloadAll();
      return;
    }
    const { db, retrievers } = this.options;
    const { store, built } = this;
    const [nodes, edges] = await Promise.all([
      loadCatalogNodes(db, uids),
      loadCatalogEdges(db, uids),
    ]);
    const found = new Set(nodes.map((node) => node.uid));
    const gone = uids.filter((uid) => !found.has(uid));
    // Every version of a page a change touches may stand for it differently afterwards.
    const versions = new Set<string>();
    for (const uid of uids) for (const version of store.versions(uid)) versions.add(version);
    for (const kind of KINDS) retrievers[kind].remove(gone);
    for (const uid of gone) store.delete(uid);
    for (const kind of KINDS) {
      const mine = nodes.filter((node) => kindOf(node.label) === kind);
      // A node that changed kind leaves the other index.
      const other = retrievers[kind === 'docs' ? 'samples' : 'docs'];
      other.remove(mine.map((node) => node.uid));
      if (!built[kind]) continue;
      for (const node of mine) {
        store.set(node.uid, node);
        store.setText(node.uid, node);
      }
      const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
      await retrievers[kind].upsert(
        mine.map((node) => this.document(node)),
        toGraphEdges(own),
      );
    }
    for (const node of nodes) if (!built[kindOf(node.label)]) store.delete(node.uid);
    for (const uid of found) for (const version of store.versions(uid)) versions.add(version);
    this.#restandVersions(versions);
    await this.#refitDrifted();
  }

  /** Which version stands for each touched page may have changed: flag them again. */
  #restandVersions(uids: Iterable<string>): void {
    for (const uid of uids) {
      const entry = this.store.get(uid);
      if (!entry || !this.built[kindOf(entry.label)]) continue;
      this.retrievers[kindOf(entry.label)].setSecondary([uid], this.store.role(uid) === 'older');
    }
  }

  /** Rebuilds an index whose fitted embedder has drifted too far from its corpus. */
  async #refitDrifted(): Promise<void> {
    for (const kind of KINDS) {
      const embedder = this.options.embedders[kind];
      if (
        this.built[kind] &&
        embedder.fit &&
        this.retrievers[kind].drift() >= this.options.refitDrift
      ) {
        await this.reloadKind(kind);
      }
    }
  }
}
