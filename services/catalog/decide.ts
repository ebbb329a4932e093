import { nodeContentHash, type NodeContent } from './content.js';
import type { NodeEvent } from './events.js';
import { CogitaveError } from '../runtime/errors.js';
import { nameUuids } from '../runtime/name-uuid.js';

/**
 * The Node aggregate: pure decide/evolve. Publishing content that hashes the same as the
 * current content decides nothing, which is what makes a re-ingest of an unchanged corpus
 * append nothing.
 */
export interface NodeState {
  readonly uid: string;
  /** Revision of the last event; null when the stream does not exist. */
  readonly revision: bigint | null;
  readonly live: boolean;
  readonly content: NodeContent | null;
  readonly contentHash: string | null;
}

export const initialNodeState = (uid: string): NodeState => ({
  uid,
  revision: null,
  live: false,
  content: null,
  contentHash: null,
});

/** Exhaustive over the node events: a new type does not compile until it is folded here. */
export const evolveNode = (state: NodeState, event: NodeEvent): NodeState => {
  const revision = state.revision === null ? 0n : state.revision + 1n;
  const { content, contentHash } = event.data;
  switch (event.type) {
    case 'NodePublished':
    case 'NodeRevised':
      return { uid: state.uid, revision, live: true, content, contentHash };
    case 'NodeRetired':
      return { uid: state.uid, revision, live: false, content, contentHash };
    default:
      return event satisfies never;
  }
};

export type NodeCommand =
  | { readonly type: 'PublishNode'; readonly content: NodeContent }
  | { readonly type: 'RetireNode'; readonly uid: string; readonly reason: string };

export const decideNode = (command: NodeCommand, state: NodeState): NodeEvent[] => {
  if (command.type === 'RetireNode') {
    if (!state.live || !state.content || !state.contentHash) return [];
    return [
      {
        type: 'NodeRetired',
        data: {
          uid: state.uid,
          contentHash: state.contentHash,
          content: state.content,
          reason: command.reason,
        },
      },
    ];
  }
  const owner = state.live ? state.content?.source : undefined;
  if (owner !== undefined && command.content.source !== owner) {
    // Ingest checks ownership on the heads it read; this catches a source that took the uid
    // after that read, so one source never revises another's node.
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `"${state.uid}" belongs to source ${owner}; remove it there first (cogitave sources remove ${owner}) or give the page another uid`,
      { uid: state.uid, source: owner },
    );
  }
  const contentHash = nodeContentHash(command.content);
  if (state.live && state.contentHash === contentHash) return [];
  if (state.live && state.contentHash) {
    return [
      {
        type: 'NodeRevised',
        data: {
          uid: state.uid,
          contentHash,
          content: command.content,
          previousContentHash: state.contentHash,
        },
      },
    ];
  }
  return [
    { type: 'NodePublished', data: { uid: state.uid, contentHash, content: command.content } },
  ];
};

/** Fixed forever: changing it would change the ids of decisions already stored. */
export const NODE_EVENT_NAMESPACE = '5d0e7c52-8a61-4d0b-b7c3-2f4e9a1d6c18';

/**
 * Event ids derive from what was decided (stream, revision it lands at, type, content), not
 * from the run: two ingests that decide the same change produce the same id, so a retried or
 * concurrent ingest is an idempotent success at the store instead of a second event.
 */
const nodeEventUuid = nameUuids(NODE_EVENT_NAMESPACE);

export const nodeEventId = (
  uid: string,
  revision: bigint,
  type: string,
  contentHash: string,
): string => nodeEventUuid(`node/${uid}/${revision}/${type}/${contentHash}`);

/** The ids of `events` decided on `state`, each at the revision it lands at. */
export const nodeEventIds = (state: NodeState, events: readonly NodeEvent[]): string[] => {
  const first = state.revision === null ? 0n : state.revision + 1n;
  return events.map((event, index) =>
    nodeEventId(state.uid, first + BigInt(index), event.type, event.data.contentHash),
  );
};
