import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, ToolDefinition } from '../../../mcp-gateway/registry.js';
import { advanceStageTool } from '../../../mcp-gateway/tools/advance-stage.js';
import { getDodTool } from '../../../mcp-gateway/tools/get-dod.js';
import { getRequestTool } from '../../../mcp-gateway/tools/get-request.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { listRequestsTool } from '../../../mcp-gateway/tools/list-requests.js';
import { requestIntakeTool } from '../../../mcp-gateway/tools/request-intake.js';
import { isCogitaveError, type CogitaveError } from '../../../services/runtime/errors.js';
import { AGENT, approveLocally, intakeArgs, openGatewayBed, type GatewayBed } from './harness.js';

/**
 * The request tools through their definitions (input parse → handler → output parse), on the
 * real composition root with the read model running: given requests, when a tool is called,
 * then its structured result, or a coded error with nothing appended.
 */

let bed: GatewayBed;

beforeAll(async () => {
  bed = await openGatewayBed('gw_tools');
});

afterAll(async () => {
  await bed.close();
});

const failure = async (
  tool: ToolDefinition,
  args: unknown,
  caller?: Caller,
): Promise<CogitaveError> => {
  try {
    await bed.call(tool, args, caller);
  } catch (error) {
    if (isCogitaveError(error)) return error;
    throw error;
  }
  throw new Error(`${tool.name} succeeded`);
};

interface IntakeResult {
  request_id: string;
  stage: string;
  status: string;
  uri: string;
  github: { issue_url: string | null };
  request: { title: string; stage: string; status: string; proposedBy: string } | null;
  next_step: string;
}

const intake = async (title?: string): Promise<IntakeResult> =>
  (await bed.call(requestIntakeTool, intakeArgs(title))) as unknown as IntakeResult;

interface ProposalResult {
  request_id: string;
  stage: string;
  proposal: { proposal_id: string; from_stage: string; to_stage: string; pull_url: null };
}

const propose = async (requestId: string, toStage: string, evidence: object = {}) =>
  (await bed.call(advanceStageTool, {
    request_id: requestId,
    to_stage: toStage,
    evidence,
    rationale: 'Triaged: the problem is real and scoped.',
  })) as unknown as ProposalResult;

/** A request accepted through the local approval path (the maintainer CLI). */
const acceptedRequest = async (title: string): Promise<string> => {
  const { request_id } = await intake(title);
  const { proposal } = await propose(request_id, 'accepted');
  await approveLocally(bed.services, request_id, proposal.proposal_id);
  await bed.caughtUp();
  return request_id;
};

describe('registry', () => {
  it('lists the five request tools with read access for reads and propose access for writes', () => {
    const access = Object.fromEntries(ALL_TOOLS.map((tool) => [tool.name, tool.access]));
    expect(access).toMatchObject({
      list_requests: 'read',
      get_request: 'read',
      get_dod: 'read',
      request_intake: 'propose',
      advance_stage: 'propose',
    });
    for (const tool of [requestIntakeTool, advanceStageTool]) {
      expect(tool.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
    }
    for (const tool of [listRequestsTool, getRequestTool, getDodTool]) {
      expect(tool.annotations.readOnlyHint && tool.annotations.idempotentHint).toBe(true);
    }
  });
});

describe('request_intake', () => {
  it('given a valid form, when proposed, then the draft is visible in the answer and in list_requests', async () => {
    const before = (await bed.events()).length;
    const result = await intake('Export the audit log as CSV files');

    expect(result.request_id).toMatch(/^req-\d{4}-\d{4}$/);
    expect(result).toMatchObject({
      stage: 'proposed',
      status: 'draft',
      uri: `cogitave://request/${result.request_id}`,
      github: { issue_url: null },
    });
    // The answer shows the draft when the read model applied it within the bounded wait
    // (2 s); on a heavily shared Postgres it may not have, and then request is null.
    await bed.caughtUp();
    const shown =
      result.request ??
      ((await bed.call(getRequestTool, { request_id: result.request_id })).request as object);
    expect(shown).toMatchObject({
      title: 'Export the audit log as CSV files',
      stage: 'proposed',
      status: 'draft',
      proposedBy: AGENT.actor,
    });
    // Local approval mode: the answer names the local command, never GitHub.
    expect(result.next_step).toContain('cogitave proposals approve');
    expect(result.next_step).not.toMatch(/GitHub|issue|pull request/i);
    const appended = (await bed.events()).slice(before);
    expect(appended.filter((e) => e.streamId.startsWith('request-'))).toEqual([
      { streamId: `request-${result.request_id}`, type: 'RequestProposed' },
    ]);
    expect(requestIntakeTool.render(requestIntakeTool.output.parse(result))).toContain(
      result.request_id,
    );

    const listed = (await bed.call(listRequestsTool, { stage: 'proposed' })) as {
      results: { request_id: string }[];
    };
    expect(listed.results.map((r) => r.request_id)).toContain(result.request_id);
  });

  it('given a vague criterion, when parsed, then the input schema refuses it with an actionable message', () => {
    const parsed = requestIntakeTool.input.safeParse({
      ...intakeArgs(),
      acceptance_criteria: ['Search should be fast and easy'],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/without a threshold/);
  });

  it('given a caller without the propose grant, when proposing, then PERMISSION_DENIED and nothing appended', async () => {
    const before = (await bed.events()).length;
    const reader: Caller = { actor: 'token:reader', grants: { ...AGENT.grants, propose: false } };
    const error = await failure(requestIntakeTool, intakeArgs(), reader);
    expect(error.code).toBe('PERMISSION_DENIED');
    expect((await bed.events()).length).toBe(before);
  });
});

describe('advance_stage', () => {
  it('given a draft, when a stage change is proposed, then only StageAdvanceProposed is appended and the stage is unchanged', async () => {
    const { request_id } = await intake('Propose acceptance of a draft');
    const before = (await bed.events()).length;
    const result = await propose(request_id, 'accepted', { notes: 'triaged' });

    expect(result).toMatchObject({
      request_id,
      stage: 'proposed',
      proposal: {
        proposal_id: `${request_id}-p1`,
        from_stage: 'proposed',
        to_stage: 'accepted',
        status: 'pending',
        proposed_by: AGENT.actor,
        pull_url: null,
      },
    });
    expect((await bed.events()).slice(before)).toEqual([
      { streamId: `request-${request_id}`, type: 'StageAdvanceProposed' },
    ]);
    await bed.caughtUp();
    const current = (await bed.call(getRequestTool, { request_id })) as {
      request: { stage: string; pendingProposal: { proposalId: string } | null };
    };
    expect(current.request.stage).toBe('proposed');
    expect(current.request.pendingProposal?.proposalId).toBe(`${request_id}-p1`);
  });

  it('given an unmet Definition of Done, when proposing, then the error lists the missing items and nothing is appended', async () => {
    const requestId = await acceptedRequest('Needs a specification first');
    const before = (await bed.events()).length;

    const error = await failure(advanceStageTool, {
      request_id: requestId,
      to_stage: 'specified',
      evidence: { notes: 'trust me, the spec exists and was approved' },
      rationale: 'We are ready to specify this change.',
    });

    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toContain('accepted.spec-link');
    expect(error.details.unmetDod).toEqual([
      expect.objectContaining({ id: 'accepted.spec-link', detail: 'evidence.specLink is missing' }),
    ]);
    expect((await bed.events()).length).toBe(before);
  });

  it('given a forbidden transition, a pending proposal or an unknown id, then coded errors and nothing appended', async () => {
    const { request_id } = await intake('Refusals of stage proposals');
    const before = (await bed.events()).length;

    const jump = await failure(advanceStageTool, {
      request_id,
      to_stage: 'done',
      evidence: {},
      rationale: 'Skip every stage at once.',
    });
    expect(jump.code).toBe('FAILED_PRECONDITION');
    expect(jump.message).toMatch(/"done" cannot be reached from "proposed"/);
    expect(jump.details.allowedStages).toContain('accepted');

    const unknown = await failure(advanceStageTool, {
      request_id: 'req-1999-0001',
      to_stage: 'accepted',
      evidence: {},
      rationale: 'This request does not exist.',
    });
    expect(unknown.code).toBe('NOT_FOUND');
    expect((await bed.events()).length).toBe(before);

    await propose(request_id, 'accepted');
    const afterFirst = (await bed.events()).length;
    const pending = await failure(advanceStageTool, {
      request_id,
      to_stage: 'accepted',
      evidence: {},
      rationale: 'Propose the same thing twice.',
    });
    expect(pending.code).toBe('FAILED_PRECONDITION');
    expect(pending.message).toMatch(/still pending/);
    expect((await bed.events()).length).toBe(afterFirst);
  });
});

describe('get_dod', () => {
  it('given no arguments, then the checklist of every stage; given a stage, then that one', async () => {
    const all = (await bed.call(getDodTool, {})) as { stages: { stage: string }[] };
    expect(all.stages.map((s) => s.stage)).toContain('in_review');
    expect(all.stages).toHaveLength(11);

    const specified = (await bed.call(getDodTool, { stage: 'specified' })) as {
      stages: { items: { id: string; met?: boolean }[] }[];
    };
    expect(specified.stages[0]?.items.map((i) => i.id)).toEqual([
      'specified.spec-link',
      'specified.test-plan',
      'specified.rollback-plan',
    ]);
    expect(specified.stages[0]?.items[0]?.met).toBeUndefined();
  });

  it('given a request, then which items hold now and where it may be proposed', async () => {
    const requestId = await acceptedRequest('Check items of an accepted request');
    const dod = (await bed.call(getDodTool, { request_id: requestId })) as {
      current_stage: string;
      all_met: boolean;
      next_stages: string[];
      stages: { stage: string; items: { id: string; met: boolean; detail?: string }[] }[];
    };
    expect(dod.current_stage).toBe('accepted');
    expect(dod.all_met).toBe(false);
    expect(dod.stages).toEqual([
      {
        stage: 'accepted',
        items: [
          expect.objectContaining({
            id: 'accepted.spec-link',
            met: false,
            detail: 'evidence.specLink is missing',
          }),
        ],
      },
    ]);
    expect(dod.next_stages).toContain('specified');

    const proposedStage = (await bed.call(getDodTool, {
      request_id: requestId,
      stage: 'proposed',
    })) as { all_met: boolean };
    expect(proposedStage.all_met).toBe(true);
  });

  it('given an unknown request, then NOT_FOUND', async () => {
    expect((await failure(getDodTool, { request_id: 'req-1999-0042' })).code).toBe('NOT_FOUND');
  });
});

describe('get_request', () => {
  interface Entry {
    revision: number;
    position: string;
    type: string;
    actor: string;
    at: string;
    hash: string;
    prevHash: string | null;
  }
  interface Answer {
    source: string;
    request: { stage: string; version: number };
    history: Entry[];
  }

  it('given an accepted request, then its current document and its hash-chained history with actors', async () => {
    const requestId = await acceptedRequest('History of an accepted request');
    const now = (await bed.call(getRequestTool, { request_id: requestId })) as unknown as Answer;

    expect(now.source).toBe('read_model');
    expect(now.request.stage).toBe('accepted');
    expect(now.history.map((e) => [e.type, e.actor])).toEqual([
      ['RequestProposed', AGENT.actor],
      ['StageAdvanceProposed', AGENT.actor],
      ['StageAdvanceApproved', 'maintainer:ana'],
      ['StageAdvanced', 'maintainer:ana'],
    ]);
    now.history.forEach((entry, index) => {
      expect(entry.revision).toBe(index);
      expect(entry.prevHash).toBe(index === 0 ? null : now.history[index - 1]?.hash);
    });
  });

  it('given as_of a position or a timestamp, then the request as it stood then', async () => {
    const requestId = await acceptedRequest('Time travel through a request');
    const now = (await bed.call(getRequestTool, { request_id: requestId })) as unknown as Answer;
    const proposal = now.history[1]!;

    const atProposal = (await bed.call(getRequestTool, {
      request_id: requestId,
      as_of: proposal.position,
    })) as unknown as Answer & { request: { pendingProposal: { toStage: string } | null } };
    expect(atProposal.source).toBe('event_stream');
    expect(atProposal.request.stage).toBe('proposed');
    expect(atProposal.request.pendingProposal?.toStage).toBe('accepted');
    expect(atProposal.history).toEqual(now.history.slice(0, 2));

    const later = (await bed.call(getRequestTool, {
      request_id: requestId,
      as_of: new Date(Date.now() + 60_000).toISOString(),
    })) as unknown as Answer;
    expect(later.request).toEqual(now.request);

    const before = await failure(getRequestTool, {
      request_id: requestId,
      as_of: '2000-01-01T00:00:00Z',
    });
    expect(before.code).toBe('NOT_FOUND');
    expect(before.message).toMatch(/did not exist yet/);
  });

  it('given a malformed as_of or request id, then the input schema refuses it', () => {
    expect(
      getRequestTool.input.safeParse({ request_id: 'req-2026-0001', as_of: 'yesterday' }).success,
    ).toBe(false);
    expect(getRequestTool.input.safeParse({ request_id: '42' }).success).toBe(false);
  });

  it('given a caller whose grants exclude the product, then NOT_FOUND exactly as for a missing request', async () => {
    const requestId = await acceptedRequest('Grants limit what is visible');
    const other: Caller = { actor: 'token:other', grants: { ...AGENT.grants, products: ['docs'] } };
    const hidden = await failure(getRequestTool, { request_id: requestId }, other);
    const missing = await failure(getRequestTool, { request_id: 'req-1999-0001' }, other);
    expect(hidden.code).toBe('NOT_FOUND');
    expect(hidden.message.replace(requestId, '<id>')).toBe(
      missing.message.replace('req-1999-0001', '<id>'),
    );
  });
});

describe('list_requests', () => {
  it('given more requests than the limit, then pages follow the opaque cursor to the end', async () => {
    await intake('Paging request number one');
    await intake('Paging request number two');
    await bed.caughtUp();
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = (await bed.call(listRequestsTool, {
        limit: 2,
        ...(cursor ? { cursor } : {}),
      })) as { results: { request_id: string }[]; next_cursor: string | null };
      seen.push(...page.results.map((r) => r.request_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 50);
    const all = (await bed.call(listRequestsTool, { limit: 100 })) as {
      results: { request_id: string }[];
      next_cursor: string | null;
    };
    expect(all.next_cursor).toBeNull();
    expect(seen).toEqual(all.results.map((r) => r.request_id));
    expect(seen.length).toBeGreaterThan(2);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('given a forged cursor or one issued for other filters, then INVALID_ARGUMENT', async () => {
    expect((await failure(listRequestsTool, { cursor: 'not-a-cursor' })).code).toBe(
      'INVALID_ARGUMENT',
    );
    const page = (await bed.call(listRequestsTool, { limit: 1 })) as { next_cursor: string };
    const error = await failure(listRequestsTool, { cursor: page.next_cursor, stage: 'done' });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/other filters/);
  });

  it('given product-limited grants, then only those products are listed', async () => {
    const limited: Caller = {
      actor: 'token:docs',
      grants: { ...AGENT.grants, products: ['docs'] },
    };
    const page = (await bed.call(listRequestsTool, {}, limited)) as { results: unknown[] };
    expect(page.results).toEqual([]);
    expect((await failure(listRequestsTool, { product: 'cogitave-core' }, limited)).code).toBe(
      'PERMISSION_DENIED',
    );
  });
});
