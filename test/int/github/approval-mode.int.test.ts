import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPROVAL_MODE_SET,
  APPROVAL_MODE_STREAM,
  type ApprovalMode,
} from '../../../services/governance/approval-mode.js';
import { createGovernanceService } from '../../../services/governance/service.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { openHarness, REPOSITORY, type Harness } from './harness.js';

/**
 * The approval mode belongs to the deployment: what serve does at start
 * (`adoptConfiguredMode`) against a real Postgres log, for processes configured either way.
 */
let h: Harness;

beforeAll(async () => {
  h = await openHarness('governance_mode');
});

afterAll(async () => {
  await h.close();
});

const governance = (configuredMode: ApprovalMode) =>
  createGovernanceService({
    eventStore: h.eventStore,
    handlers: h.handlers,
    principals: h.governance.principals,
    configuredMode,
    repository: configuredMode === 'github' ? REPOSITORY : null,
  });

const refusal = async (run: Promise<unknown>): Promise<{ code: string; message: string }> => {
  try {
    await run;
  } catch (error) {
    if (isCogitaveError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('approval mode of the deployment', () => {
  it('given a fresh log, when two processes configured for GitHub start at once, then the mode is recorded once; a local process is then refused until a maintainer changes it', async () => {
    const [first, second] = await Promise.all([
      governance('github').adoptConfiguredMode(),
      governance('github').adoptConfiguredMode(),
    ]);
    expect([first.mode, second.mode, first.setBy]).toEqual(['github', 'github', 'serve']);
    expect((await h.eventStore.readStream(APPROVAL_MODE_STREAM)).map((e) => e.data)).toEqual([
      {
        mode: 'github',
        previous: null,
        setBy: 'serve',
        reason: 'first start of the deployment',
        repository: REPOSITORY,
      },
    ]);

    const local = governance('local');
    const refused = await refusal(local.adoptConfiguredMode());
    const localApproval = await refusal(
      local.decideLocally({ proposalId: 'req-2026-0001-p1', decision: 'approve', as: 'grace' }),
    );
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).toContain("This deployment's approval mode is github (set by serve at");
    expect(refused.message).toContain('cogitave approval-mode set local --as <maintainer>');
    expect(localApproval.message).toContain('This deployment approves on GitHub');

    await local.setMode({ mode: 'local', as: 'grace', reason: 'GitHub is being retired' });
    expect((await local.adoptConfiguredMode()).mode).toBe('local');
    expect((await refusal(governance('github').adoptConfiguredMode())).code).toBe(
      'FAILED_PRECONDITION',
    );
    const events = await h.eventStore.readStream(APPROVAL_MODE_STREAM);
    expect(events.map((e) => [e.type, e.data])).toContainEqual([
      APPROVAL_MODE_SET,
      {
        mode: 'local',
        previous: 'github',
        setBy: 'grace',
        reason: 'GitHub is being retired',
        repository: null,
      },
    ]);
    expect((await refusal(local.setMode({ mode: 'local', as: 'grace' }))).message).toContain(
      'already local',
    );
  });

  it('given a log from before modes were recorded that holds GitHub pull requests, when read, then it counts as GitHub mode', async () => {
    const other = await openHarness('governance_mode_inferred');
    try {
      await other.eventStore.append(
        `request-req-2026-${randomUUID().slice(0, 4)}`,
        [
          {
            id: randomUUID(),
            type: 'IntakeIssueOpened',
            data: { requestId: 'req-2026-0001', repository: REPOSITORY, issueNumber: 1 },
            metadata: {
              actor: 'system:github-reactor',
              at: new Date().toISOString(),
              correlationId: 'c',
              causationId: 'c',
            },
          },
        ],
        { expectedRevision: 'any' },
      );
      const local = createGovernanceService({
        eventStore: other.eventStore,
        handlers: other.handlers,
        principals: other.governance.principals,
        configuredMode: 'local',
        repository: null,
      });
      expect(await local.recordedMode()).toMatchObject({ mode: 'github', source: 'inferred' });
      expect((await refusal(local.adoptConfiguredMode())).message).toContain(
        'has approved on GitHub',
      );
      expect((await other.governance.adoptConfiguredMode()).source).toBe('recorded');
    } finally {
      await other.close();
    }
  });
});
