import { UNRESTRICTED } from '../../../services/access/grants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventToAppend, Position } from '../../../services/event-store/types.js';
import { requestStreamId, type RequestEvent } from '../../../services/requests/events.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import {
  getRequest,
  getRequestHistory,
  listRequests,
} from '../../../services/requests/read-model/queries.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { requestDocument } from '../../../services/requests/read-model/state.js';
import { getResource, listResources, resourceContentHash } from '../../../projections/resources.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import {
  minute,
  openTestBed,
  proposed,
  requestEvent,
  silentLogger,
  type TestBed,
} from './support/fixtures.js';

/**
 * The Request read model through a whole lifecycle, on server Postgres and on PGlite: given
 * events appended through the real store, when the runner has caught up, then the rows.
 */
describe.each(['postgres', 'pglite'] as const)('requests read model (%s)', (kind) => {
  const A = 'req-2026-0001';
  const B = 'req-2026-0002';
  let bed: TestBed;
  let runner: ProjectionRunner;
  const revisions = new Map<string, bigint>();
  let clock = 0;

  const append = async (requestId: string, ...events: RequestEvent[]): Promise<Position> => {
    const stream = requestStreamId(requestId);
    const batch: EventToAppend[] = events.map((event) => {
      clock += 1;
      const actor = 'proposedBy' in event.data ? event.data.proposedBy : 'maintainer:ana';
      return requestEvent(event, actor, minute(clock));
    });
    const expected = revisions.get(stream);
    const result = await bed.store.append(stream, batch, {
      expectedRevision: expected ?? 'no_stream',
    });
    revisions.set(stream, result.nextRevision);
    await runner.waitFor(
      'requests',
      (s) => s.position !== null && s.position >= result.position,
      20_000,
    );
    return result.position;
  };

  beforeAll(async () => {
    bed = await openTestBed(kind, 'proj_requests');
    runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [requestsProjection],
      lagProbeIntervalMs: 0,
    });
    runner.start();
  });

  afterAll(async () => {
    await runner.stop();
    await bed.close();
  });

  it('shows an intake as a draft in stage proposed, with its issue', async () => {
    await append(A, proposed(A, 'Faster search'), {
      type: 'IntakeIssueOpened',
      data: {
        requestId: A,
        repository: 'cogitave/requests',
        issueNumber: 7,
        issueUrl: 'https://github.com/cogitave/requests/issues/7',
      },
    });
    const request = await getRequest(bed.database.pool, UNRESTRICTED, A);
    expect(request && requestDocument(request)).toMatchObject({
      requestId: A,
      uri: `cogitave://request/${A}`,
      title: 'Faster search',
      product: 'docs',
      requester: 'team:docs',
      priority: 'high',
      stage: 'proposed',
      status: 'draft',
      resumeStage: null,
      pendingProposal: null,
      intakeIssue: {
        repository: 'cogitave/requests',
        number: 7,
        url: 'https://github.com/cogitave/requests/issues/7',
      },
      proposedBy: 'agent:intake',
      createdAt: minute(1),
      updatedAt: minute(2),
      version: 1,
    });
  });

  it('tracks a pending proposal, its pull request, and its approval', async () => {
    await append(A, {
      type: 'StageAdvanceProposed',
      data: {
        requestId: A,
        proposalId: `${A}-p1`,
        fromStage: 'proposed',
        toStage: 'accepted',
        evidence: { notes: 'triaged' },
        rationale: 'ready',
        proposedBy: 'agent:pm',
      },
    });
    await append(A, {
      type: 'ProposalPullRequestOpened',
      data: {
        requestId: A,
        proposalId: `${A}-p1`,
        repository: 'cogitave/requests',
        branch: `proposal/${A}-p1`,
        pullNumber: 12,
        pullUrl: 'https://github.com/cogitave/requests/pull/12',
      },
    });
    const pending = await getRequest(bed.database.pool, UNRESTRICTED, A);
    expect(pending && requestDocument(pending).pendingProposal).toMatchObject({
      proposalId: `${A}-p1`,
      fromStage: 'proposed',
      toStage: 'accepted',
      proposedBy: 'agent:pm',
      pullNumber: 12,
      pullUrl: 'https://github.com/cogitave/requests/pull/12',
    });
    expect(pending?.stage).toBe('proposed');

    await append(
      A,
      {
        type: 'StageAdvanceApproved',
        data: {
          requestId: A,
          proposalId: `${A}-p1`,
          approvedBy: 'maintainer:ana',
          via: 'github',
          mergeCommitSha: 'f00d',
        },
      },
      {
        type: 'StageAdvanced',
        data: { requestId: A, proposalId: `${A}-p1`, fromStage: 'proposed', toStage: 'accepted' },
      },
    );
    const accepted = await getRequest(bed.database.pool, UNRESTRICTED, A);
    expect(accepted).toMatchObject({
      stage: 'accepted',
      status: 'active',
      pendingProposalId: null,
      version: 5,
    });
    expect(accepted?.evidence).toEqual({ notes: 'triaged' });
  });

  it('remembers the stage to resume after deferred, and clears a rejected proposal', async () => {
    await append(
      A,
      {
        type: 'StageAdvanceProposed',
        data: {
          requestId: A,
          proposalId: `${A}-p2`,
          fromStage: 'accepted',
          toStage: 'deferred',
          evidence: {},
          rationale: 'later',
          proposedBy: 'agent:pm',
        },
      },
      {
        type: 'StageAdvanceApproved',
        data: {
          requestId: A,
          proposalId: `${A}-p2`,
          approvedBy: 'maintainer:ana',
          via: 'local',
          mergeCommitSha: null,
        },
      },
      {
        type: 'StageAdvanced',
        data: { requestId: A, proposalId: `${A}-p2`, fromStage: 'accepted', toStage: 'deferred' },
      },
    );
    expect(await getRequest(bed.database.pool, UNRESTRICTED, A)).toMatchObject({
      stage: 'deferred',
      status: 'active',
      resumeStage: 'accepted',
    });

    await append(A, {
      type: 'StageAdvanceProposed',
      data: {
        requestId: A,
        proposalId: `${A}-p3`,
        fromStage: 'deferred',
        toStage: 'accepted',
        evidence: {},
        rationale: 'back',
        proposedBy: 'agent:pm',
      },
    });
    expect((await getRequest(bed.database.pool, UNRESTRICTED, A))?.pendingProposalId).toBe(
      `${A}-p3`,
    );
    await append(A, {
      type: 'StageAdvanceRejected',
      data: {
        requestId: A,
        proposalId: `${A}-p3`,
        rejectedBy: 'maintainer:ana',
        via: 'github',
        reason: 'not yet',
      },
    });
    expect(await getRequest(bed.database.pool, UNRESTRICTED, A)).toMatchObject({
      stage: 'deferred',
      resumeStage: 'accepted',
      pendingProposalId: null,
    });
  });

  it('closes withdrawn and intake-rejected requests', async () => {
    await append(A, {
      type: 'RequestWithdrawn',
      data: { requestId: A, withdrawnBy: 'agent:intake', reason: 'superseded by B' },
    });
    expect(await getRequest(bed.database.pool, UNRESTRICTED, A)).toMatchObject({
      stage: 'withdrawn',
      status: 'closed',
      resumeStage: null,
      closedReason: 'superseded by B',
      version: 11,
    });
    await append(B, proposed(B), {
      type: 'IntakeRejected',
      data: { requestId: B, rejectedBy: 'maintainer:ana', via: 'local', reason: 'out of scope' },
    });
    expect(await getRequest(bed.database.pool, UNRESTRICTED, B)).toMatchObject({
      stage: 'rejected',
      status: 'closed',
      closedReason: 'out of scope',
    });
    const closed = await listRequests(bed.database.pool, UNRESTRICTED, {
      status: 'closed',
      limit: 10,
    });
    expect(closed.map((r) => r.requestId)).toEqual([A, B]);
    expect(
      await listRequests(bed.database.pool, UNRESTRICTED, { product: 'learn', limit: 10 }),
    ).toHaveLength(1);
  });

  it('keeps one history row per event with its chain links and a summary', async () => {
    const history = await getRequestHistory(bed.database.pool, UNRESTRICTED, A);
    const events = await bed.store.readStream(requestStreamId(A));
    expect(history).toHaveLength(events.length);
    history.forEach((entry, index) => {
      const event = events[index]!;
      expect(entry).toMatchObject({
        position: event.position,
        revision: Number(event.revision),
        eventId: event.id,
        type: event.type,
        actor: event.metadata.actor,
        at: event.metadata.at,
        hash: event.hash,
        prevHash: event.prevHash,
      });
    });
    expect(history.map((entry) => entry.summary)).toEqual([
      'Proposed "Faster search" for docs (high)',
      'Intake issue #7 opened in cogitave/requests',
      `Proposed proposed → accepted (${A}-p1)`,
      `Pull request #12 opened for ${A}-p1`,
      `${A}-p1 approved by maintainer:ana via github`,
      `Advanced proposed → accepted (${A}-p1)`,
      `Proposed accepted → deferred (${A}-p2)`,
      `${A}-p2 approved by maintainer:ana via local`,
      `Advanced accepted → deferred (${A}-p2)`,
      `Proposed deferred → accepted (${A}-p3)`,
      `${A}-p3 rejected by maintainer:ana via github: not yet`,
      'Withdrawn by agent:intake: superseded by B',
    ]);
  });

  it('indexes each request as a resource whose hash covers its document', async () => {
    const request = (await getRequest(bed.database.pool, UNRESTRICTED, A))!;
    const resource = await getResource(bed.database.pool, UNRESTRICTED, `cogitave://request/${A}`);
    expect(resource).toEqual({
      uri: `cogitave://request/${A}`,
      type: 'request',
      product: 'docs',
      title: 'Faster search',
      contentHash: resourceContentHash(requestDocument(request)),
      lastModified: request.updatedAt,
    });
    const page = await listResources(bed.database.pool, UNRESTRICTED, {
      type: 'request',
      limit: 1,
    });
    expect(page.map((r) => r.uri)).toEqual([`cogitave://request/${A}`]);
    const next = await listResources(bed.database.pool, UNRESTRICTED, {
      type: 'request',
      afterUri: page[0]!.uri,
      limit: 5,
    });
    expect(next.map((r) => r.uri)).toEqual([`cogitave://request/${B}`]);
  });

  it('equals a rebuild from position zero', async () => {
    await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: requestsProjection,
      schema: 'shadow_check',
      batchSize: 3,
    });
    const live = await digestTables(bed.database.pool, requestsProjection);
    const shadow = await digestTables(bed.database.pool, requestsProjection, 'shadow_check');
    expect(shadow).toEqual(live);
    expect(live.map((d) => d.rows)).toEqual([2, 14, 2]);
    const [status] = runner.status();
    expect(status).toMatchObject({
      name: 'requests',
      state: 'caught_up',
      leader: true,
      eventsApplied: 14,
      error: null,
    });
  });
});
