import type { ChangeFeed } from '../../projections/change-feed.js';
import { resourceUri } from '../../projections/resources.js';
import {
  getRequest,
  getRequestHistory,
  listRequests,
  type HistoryEntry,
  type ListRequestsOptions,
} from './read-model/queries.js';
import { parseRequestEvent } from './parse.js';
import {
  REQUEST_RESOURCE_TYPE,
  REQUESTS_PROJECTION,
  requestDocument,
  summarize,
  type RequestDocument,
  type RequestState,
} from './read-model/state.js';
import { mayRead, mayReadType, requireType, type ReadScope } from '../access/grants.js';
import type { Queryable } from '../database/queryable.js';
import { isPosition } from '../event-store/position.js';
import type { EventStore, Position } from '../event-store/types.js';
import { readWholeStream } from '../event-store/whole-stream.js';
import { NotFound } from '../runtime/errors.js';
import type { IntakeResult } from './commands.js';
import { RequestNotFound } from './errors.js';
import { REQUEST_EVENT_TYPES, requestStreamId, type RequestEvent } from './events.js';
import { evolveRequest, findProposal, pendingProposalOf } from './fold.js';
import { loadRequestAsOf } from './time-travel.js';

export { requestDocument, type ListRequestsOptions, type RequestDocument, type RequestState };

/**
 * The requests' read side as callers see it: the read model for "now", the request's own
 * stream for time travel and for a request proposed a moment ago. Every method takes the
 * caller's scope (required). Without the `request` type a call is refused (that depends on
 * the grant alone); a request of a product outside the scope answers exactly as a missing
 * one (`RequestNotFound`), in time travel too.
 */
/** One event of a request's history (as the read model's history table has it). */
export type RequestHistoryEntry = Omit<HistoryEntry, 'eventId'>;

export interface RequestView {
  readonly state: RequestState;
  /** Every event of the request up to the view, oldest first. */
  readonly history: readonly RequestHistoryEntry[];
}

/** A proposal as the read model shows it, or as its stream does until the model catches up. */
export interface ProposalView {
  /** The request's stage (a proposal does not move it). */
  readonly stage: RequestState['stage'];
  readonly fromStage: RequestState['stage'];
  /** Its draft pull request, once the read model shows one. */
  readonly pullUrl: string | null;
}

export interface RequestsReadService {
  /** A page in request-id order: only the scope's requests, so a page is never short. */
  list(scope: ReadScope, options: ListRequestsOptions): Promise<RequestState[]>;
  /** The request now, with its history. */
  get(scope: ReadScope, requestId: string): Promise<RequestView>;
  /** The request now, without its history. */
  state(scope: ReadScope, requestId: string): Promise<RequestState>;
  /** The same, or undefined when the scope does not show it (no refusal, for read-backs). */
  find(scope: ReadScope, requestId: string): Promise<RequestState | undefined>;
  /** The resource URI of a request (`cogitave://request/<id>`). */
  uriOf(requestId: string): string;
  /** The request as it stood at a log position or an ISO-8601 instant (from its stream). */
  asOf(scope: ReadScope, requestId: string, asOf: string): Promise<RequestView>;
  /** The product of a request, even one the read model does not show yet. */
  productOf(scope: ReadScope, requestId: string): Promise<string>;
  /** A proposal of the request, after it was appended at `revision`. */
  proposal(
    scope: ReadScope,
    requestId: string,
    proposalId: string,
    revision: bigint,
  ): Promise<ProposalView>;
  /**
   * Read-your-writes: waits (bounded by `timeoutMs`) until the read model has applied the
   * request's event at `revision`; false when the wait ran out.
   */
  waitFor(requestId: string, revision: bigint, timeoutMs: number): Promise<boolean>;
  /**
   * The request an intake just proposed, folded from its decided event exactly as the read
   * model will show it, and the write to wait for before a read shows it (`readModel` at
   * `position`). No read: for the answer of the intake itself.
   */
  proposed(intake: IntakeResult): {
    readonly state: RequestState;
    readonly readModel: string;
    readonly position: Position;
  };
}

export interface RequestsReadServiceDeps {
  readonly db: Queryable;
  readonly eventStore: EventStore;
  readonly changes: Pick<ChangeFeed, 'waitForPosition'>;
}

const WHAT = 'reading requests';
/** How long a proposal's answer waits for the read model to show it. */
const PROPOSAL_WAIT_MS = 2000;

const absentAsUndefined = (error: unknown): undefined => {
  if (error instanceof RequestNotFound) return undefined;
  throw error;
};

const isRequestEvent = (type: string): type is RequestEvent['type'] =>
  (REQUEST_EVENT_TYPES as readonly string[]).includes(type);

export const createRequestsReadService = (deps: RequestsReadServiceDeps): RequestsReadService => {
  const { db, eventStore } = deps;

  const current = async (scope: ReadScope, requestId: string): Promise<RequestState> => {
    requireType(scope, REQUEST_RESOURCE_TYPE, WHAT);
    const state = await getRequest(db, scope, requestId);
    if (!state) throw new RequestNotFound(requestId);
    return state;
  };

  const waitFor = async (
    requestId: string,
    revision: bigint,
    timeoutMs: number,
  ): Promise<boolean> => {
    const [event] = await eventStore.readStream(requestStreamId(requestId), {
      fromRevision: revision,
      maxCount: 1,
    });
    if (!event) return false;
    return deps.changes.waitForPosition(REQUESTS_PROJECTION, event.position, { timeoutMs });
  };

  return {
    list: (scope, options) => {
      requireType(scope, REQUEST_RESOURCE_TYPE, WHAT);
      return listRequests(db, scope, options);
    },

    state: current,

    find: async (scope, requestId) =>
      mayReadType(scope, REQUEST_RESOURCE_TYPE) ? getRequest(db, scope, requestId) : undefined,

    uriOf: (requestId) => resourceUri(REQUEST_RESOURCE_TYPE, requestId),

    get: async (scope, requestId) => {
      const state = await current(scope, requestId);
      const history = await getRequestHistory(db, scope, requestId);
      return {
        state,
        history: history.map(({ eventId: _eventId, ...entry }) => entry),
      };
    },

    asOf: async (scope, requestId, asOf) => {
      // The read model decides visibility first, so an unreadable request is absent in time
      // travel too.
      await current(scope, requestId);
      const view = await loadRequestAsOf(
        eventStore,
        requestId,
        isPosition(asOf) ? { position: asOf } : { at: asOf },
      );
      if (view.revision === null) {
        throw new NotFound(
          `Request ${requestId} did not exist yet as of ${asOf}: its first event is later. Use a later as_of, or omit it for the current state.`,
          { requestId, asOf },
        );
      }
      // Time travel decides the cut (the last event included); the stream is read once more
      // for the recorded events, which carry the hashes and positions the history shows.
      const cut = view.revision;
      const included = (await readWholeStream(eventStore, requestStreamId(requestId))).filter(
        (recorded) => recorded.revision <= cut,
      );
      let state: RequestState | undefined;
      const history: RequestHistoryEntry[] = [];
      for (const recorded of included) {
        if (!isRequestEvent(recorded.type)) continue;
        const event = parseRequestEvent(recorded);
        state = evolveRequest(state, recorded, event);
        history.push({
          revision: Number(recorded.revision),
          position: recorded.position,
          type: recorded.type,
          actor: recorded.metadata.actor,
          at: new Date(recorded.metadata.at).toISOString(),
          hash: recorded.hash,
          prevHash: recorded.prevHash,
          summary: summarize(event),
        });
      }
      if (!state) throw new RequestNotFound(requestId);
      return { state, history };
    },

    productOf: async (scope, requestId) => {
      requireType(scope, REQUEST_RESOURCE_TYPE, WHAT);
      // The read model may not show a request proposed a moment ago yet; its stream is the
      // truth (the command handler reads it too).
      const product =
        (await getRequest(db, scope, requestId))?.product ??
        (await loadRequestAsOf(eventStore, requestId).catch(absentAsUndefined))?.state?.product;
      if (product === undefined || !mayRead(scope, REQUEST_RESOURCE_TYPE, product))
        throw new RequestNotFound(requestId);
      return product;
    },

    proposal: async (scope, requestId, proposalId, revision) => {
      requireType(scope, REQUEST_RESOURCE_TYPE, WHAT);
      const caughtUp = await waitFor(requestId, revision, PROPOSAL_WAIT_MS);
      const after = caughtUp ? await getRequest(db, scope, requestId) : undefined;
      const pending = after && pendingProposalOf(after);
      if (after && pending?.proposalId === proposalId) {
        return {
          stage: after.stage,
          fromStage: pending.fromStage,
          pullUrl: pending.pullRequest?.pullUrl ?? null,
        };
      }
      // Not shown yet (or already decided): the stream has the proposal.
      const { state } = await loadRequestAsOf(eventStore, requestId);
      if (!state || !mayRead(scope, REQUEST_RESOURCE_TYPE, state.product))
        throw new RequestNotFound(requestId);
      const proposal = findProposal(state, proposalId);
      const stage = after?.stage ?? state.stage;
      return { stage, fromStage: proposal?.fromStage ?? stage, pullUrl: null };
    },

    waitFor,

    proposed: (intake) => ({
      state: evolveRequest(
        undefined,
        { revision: intake.revision, position: intake.position, metadata: { at: intake.at } },
        intake.proposed,
      ),
      readModel: REQUESTS_PROJECTION,
      position: intake.position,
    }),
  };
};
