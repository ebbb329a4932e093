import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverInstructions } from '../../../mcp-gateway/server/instructions.js';
import { advanceStageTool } from '../../../mcp-gateway/tools/advance-stage.js';
import { requestIntakeTool } from '../../../mcp-gateway/tools/request-intake.js';
import { intakeArgs, openGatewayBed, type GatewayBed } from './harness.js';

/**
 * What agents are told of approvals comes from the deployment's log (its ApprovalModeSet
 * events), never from the serving process's configuration. This process has no GitHub
 * credentials (its configuration implies local mode); the log is then switched to github and
 * back, as `cogitave approval-mode set` does while the server runs.
 */
let bed: GatewayBed;
beforeAll(async () => {
  bed = await openGatewayBed('approval_mode_log');
  // The first serve records the mode its configuration implies: local.
  await bed.app.governance.adoptConfiguredMode();
});
afterAll(async () => {
  await bed.close();
});

const GITHUB_WORDS = /GitHub|issue|pull request|\bPR\b/i;

const toldNow = async (kind: 'github' | 'local'): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (bed.services.approvals.current().kind !== kind) {
    if (Date.now() > deadline) throw new Error(`the gateway never followed the log to ${kind}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** An intake and a stage proposal, as an agent makes them: their `next_step` texts. */
const agentIsTold = async (
  title: string,
): Promise<{ intake: string; proposal: string; instructions: string }> => {
  const intake = await bed.call(requestIntakeTool, intakeArgs(title));
  const proposed = await bed.call(advanceStageTool, {
    request_id: intake.request_id,
    to_stage: 'accepted',
    evidence: {},
    rationale: 'The problem is real and the acceptance criteria are measurable.',
  });
  return {
    intake: intake.next_step as string,
    proposal: proposed.next_step as string,
    instructions: serverInstructions(bed.services.approvals.current()),
  };
};

const expectLocal = (told: { intake: string; proposal: string; instructions: string }): void => {
  for (const text of [told.intake, told.proposal, told.instructions]) {
    expect(text).toContain('cogitave proposals approve');
    expect(text).toContain('console (/console)');
    expect(text).not.toMatch(GITHUB_WORDS);
  }
};

describe('agents are told the approval mode the log records', () => {
  it('given the log records local mode, then the server instructions and the intake and advance_stage answers speak of local approval only', async () => {
    await toldNow('local');
    expectLocal(await agentIsTold('Export the audit log as CSV, local'));
  });

  it('given a process without GitHub credentials, when the log switches to github and back while it serves, then what agents are told follows the log each time', async () => {
    await bed.app.governance.setMode({ mode: 'github', as: 'ana', reason: 'Moving to PRs.' });
    await toldNow('github');
    const github = await agentIsTold('Export the audit log as CSV, github');
    for (const text of [github.intake, github.proposal, github.instructions]) {
      expect(text).toMatch(/GitHub/);
      expect(text).not.toContain('cogitave proposals approve');
    }

    await bed.app.governance.setMode({ mode: 'local', as: 'ana', reason: 'Back to local.' });
    await toldNow('local');
    expectLocal(await agentIsTold('Export the audit log as CSV, local again'));
  });
});
