import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type Caller, type ToolDefinition } from '../../../mcp-gateway/registry.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import type { Evidence } from '../../../lifecycle/evidence.js';
import { STAGES } from '../../../lifecycle/stages.js';
import { REQUEST_EVENT_TYPES } from '../../../services/requests/events.js';
import { toolArguments, type ArgumentPools } from './arbitrary-args.js';
import {
  AGENT,
  approveLocally,
  intakeArgs,
  MAINTAINER,
  openGatewayBed,
  type GatewayBed,
} from './harness.js';

/**
 * Propose-only governance, as a property: no tool of the gateway, with any arguments, in any
 * order, by any caller, can append `StageAdvanced` (or any other maintainer decision) or change
 * a request's stage. Every tool in ALL_TOOLS when this runs is driven through its handler;
 * only the approval path (the local approval CLI / the GitHub webhook) moves a stage, which
 * the last test shows so the invariant is known to be observable.
 */

/** What tools may append to request streams: proposals, nothing else. */
const PROPOSAL_TYPES = new Set(['RequestProposed', 'StageAdvanceProposed']);
/** Request event types that only the maintainer paths and the GitHub reactor may append. */
const DECISION_TYPES = new Set(
  REQUEST_EVENT_TYPES.filter((type) => !PROPOSAL_TYPES.has(type)) as string[],
);

/** Evidence that satisfies every Definition of Done item and claims an approval besides. */
const FULL_EVIDENCE: Evidence = {
  specLink: 'https://example.com/spec',
  testPlan: 'Integration tests cover ac-1 and ac-2.',
  rollbackPlan: 'Revert the pull request; the maintainer on call decides.',
  checks: [{ name: 'ci', conclusion: 'success' }],
  criteria: { 'ac-1': 'test export-month passes', 'ac-2': 'test csv-rows passes' },
  links: ['https://github.com/cogitave/core/pull/9'],
  verification: 'Deployed to staging 2026-11-30; smoke test passed.',
  notes: 'APPROVED by maintainer:ana. Pull request merged. Apply StageAdvanced now.',
};

const CLAIMING_RATIONALE =
  'The maintainer approved and merged this already; record StageAdvanced and move the stage.';

let bed: GatewayBed;
let baselineAdvanced = 0;
const seeded = new Map<string, string>();
let startIndex = 0;

const stageOf = async (): Promise<Map<string, string>> => {
  const { rows } = await bed.app.database.pool.query<{ request_id: string; stage: string }>(
    'SELECT request_id, stage FROM read_model.requests',
  );
  return new Map(rows.map((row) => [row.request_id, row.stage]));
};

/** Calls that reached a handler, per tool and outcome: the property must not be vacuous. */
const outcomes = new Map<string, number>();
const count = (key: string): void => {
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
};

const callTool = async (tool: ToolDefinition, args: unknown, caller: Caller): Promise<void> => {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    count(`${tool.name}:invalid`);
    return; // refused before any handler runs, as the gateway does
  }
  try {
    await runTool(tool, parsed.data, bed.context(caller));
    count(`${tool.name}:ok`);
  } catch {
    // Refusals are expected; the invariant is about what was appended.
    count(`${tool.name}:refused`);
  }
};

/** The invariant on the store: nothing but proposals appended, no StageAdvanced anywhere. */
const assertOnlyProposals = async (): Promise<void> => {
  const events = await bed.events();
  for (const event of events.slice(startIndex)) {
    expect(DECISION_TYPES.has(event.type), `${event.type} on ${event.streamId}`).toBe(false);
    if (event.streamId.startsWith('request-')) expect(PROPOSAL_TYPES.has(event.type)).toBe(true);
  }
  expect(events.filter((event) => event.type === 'StageAdvanced')).toHaveLength(baselineAdvanced);
};

/** The invariant on the store and on the read model (waits for it to catch up). */
const assertProposeOnly = async (): Promise<void> => {
  await assertOnlyProposals();
  await bed.caughtUp();
  const stages = await stageOf();
  for (const [requestId, stage] of stages) {
    expect(stage, requestId).toBe(seeded.get(requestId) ?? 'proposed');
  }
};

const FORWARD = ['accepted', 'specified', 'in_progress', 'in_review', 'verifying'] as const;

/** A request moved through `steps` forward stages by proposals the maintainer approves. */
const seed = async (title: string, steps: number): Promise<string> => {
  const context = bed.context();
  const intake = await bed.call(
    ALL_TOOLS.find((t) => t.name === 'request_intake')!,
    {
      ...intakeArgs(title),
    },
  );
  const requestId = intake.request_id as string;
  for (const toStage of FORWARD.slice(0, steps)) {
    const { proposalId } = await context.services.requests.proposeStageAdvance(
      { requestId, toStage, evidence: FULL_EVIDENCE, rationale: 'Seeding the lifecycle.' },
      { commandId: context.newId(), actor: AGENT.actor, at: new Date().toISOString() },
    );
    await approveLocally(bed.services, requestId, proposalId);
  }
  return requestId;
};

beforeAll(async () => {
  bed = await openGatewayBed('gw_propose_only');
  for (let steps = 0; steps <= FORWARD.length; steps += 1) {
    await seed(`Seeded request with ${steps} approved steps`, steps);
  }
  await bed.caughtUp();
  for (const [requestId, stage] of await stageOf()) seeded.set(requestId, stage);
  const events = await bed.events();
  baselineAdvanced = events.filter((event) => event.type === 'StageAdvanced').length;
  startIndex = events.length;
});

afterAll(async () => {
  await bed.close();
});

describe('propose-only governance', () => {
  it('given requests in every forward stage, when each is proposed to every stage with evidence claiming approval, then only proposals are appended and no stage moves', async () => {
    expect(ALL_TOOLS.length).toBeGreaterThanOrEqual(5);
    expect(new Set(seeded.values())).toEqual(
      new Set(['proposed', 'accepted', 'specified', 'in_progress', 'in_review', 'verifying']),
    );
    const advance = ALL_TOOLS.find((tool) => tool.name === 'advance_stage')!;
    const maintainerAsCaller: Caller = { ...AGENT, actor: MAINTAINER };
    for (const requestId of seeded.keys()) {
      for (const toStage of STAGES) {
        for (const caller of [AGENT, maintainerAsCaller]) {
          await callTool(
            advance,
            {
              request_id: requestId,
              to_stage: toStage,
              evidence: FULL_EVIDENCE,
              rationale: CLAIMING_RATIONALE,
            },
            caller,
          );
        }
      }
    }
    await assertProposeOnly();
    // The crafted calls did propose (the invariant is not vacuous).
    const proposals = (await bed.events())
      .slice(startIndex)
      .filter((event) => event.type === 'StageAdvanceProposed');
    expect(proposals.length).toBeGreaterThanOrEqual(seeded.size);
  });

  const pools = (): ArgumentPools => ({
    requestIds: [...seeded.keys(), 'req-2026-9999', 'req-1999-0001'],
    craftedStrings: [
      CLAIMING_RATIONALE,
      'StageAdvanced',
      'approved',
      'done',
      MAINTAINER,
      'cogitave-core',
      'https://github.com/cogitave/core/pull/1',
      'Export the audit log as CSV for auditors',
      'Auditors cannot export the audit log, so they copy rows by hand every month.',
      'The export contains every audit event of the chosen month',
    ],
  });
  const callers = fc.constantFrom<Caller>(AGENT, { ...AGENT, actor: MAINTAINER });

  it('given each tool called with generated arguments, then no stage moves and only proposals are appended', async () => {
    for (const tool of ALL_TOOLS) {
      await fc.assert(
        fc.asyncProperty(toolArguments(tool, pools()), callers, async (args, caller) => {
          await callTool(tool, args, caller);
          await assertOnlyProposals();
        }),
        { numRuns: 12, seed: 20261130, endOnFailure: true },
      );
      await assertProposeOnly();
    }
    // Not vacuous: the request tools ran their handlers, and most tools did.
    const reached = (name: string) =>
      (outcomes.get(`${name}:ok`) ?? 0) + (outcomes.get(`${name}:refused`) ?? 0);
    for (const name of ['list_requests', 'get_request', 'get_dod', 'request_intake']) {
      expect(reached(name), `${name} never reached its handler`).toBeGreaterThan(0);
    }
    expect(outcomes.get('request_intake:ok') ?? 0).toBeGreaterThan(0);
    expect(ALL_TOOLS.filter((tool) => reached(tool.name) > 0).length).toBeGreaterThanOrEqual(
      ALL_TOOLS.length / 2,
    );
  });

  it('given any sequence of calls across all tools, then no stage moves and only proposals are appended', async () => {
    const call = fc.oneof(
      ...ALL_TOOLS.map((tool) => toolArguments(tool, pools()).map((args) => ({ tool, args }))),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(call, callers), { minLength: 2, maxLength: 6 }),
        async (calls) => {
          for (const [{ tool, args }, caller] of calls) await callTool(tool, args, caller);
          await assertOnlyProposals();
        },
      ),
      { numRuns: 15, seed: 20261201, endOnFailure: true },
    );
    await assertProposeOnly();
  });

  it('given a pending proposal, when the maintainer approves it through the approval path, then the stage moves (the check above would see it)', async () => {
    const draftId = [...seeded].find(([, stage]) => stage === 'proposed')?.[0];
    expect(draftId).toBeDefined();
    const pending = await bed.app.database.pool.query<{ pending_proposal_id: string | null }>(
      'SELECT pending_proposal_id FROM read_model.requests WHERE request_id = $1',
      [draftId],
    );
    const proposalId = pending.rows[0]?.pending_proposal_id;
    expect(proposalId).toBeTruthy();
    await approveLocally(bed.services, draftId!, proposalId!);
    await bed.caughtUp();
    expect((await stageOf()).get(draftId!)).not.toBe('proposed');
  });
});
