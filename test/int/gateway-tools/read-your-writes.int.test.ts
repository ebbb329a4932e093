import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type Caller } from '../../../mcp-gateway/registry.js';
import { getRequestTool } from '../../../mcp-gateway/tools/get-request.js';
import { listRequestsTool } from '../../../mcp-gateway/tools/list-requests.js';
import { requestIntakeTool } from '../../../mcp-gateway/tools/request-intake.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { AGENT, intakeArgs, openGatewayBed, type GatewayBed } from './harness.js';

/**
 * request_intake answers from the decided events, without waiting for the read model; the
 * caller's next read waits (bounded) until the read model has applied the intake's position,
 * and nobody else's read waits for it. The read models here start late, or never.
 */

const OTHER: Caller = { ...AGENT, actor: 'agent:other' };

interface Intake {
  readonly request_id: string;
  readonly request: Record<string, unknown>;
}

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (isCogitaveError(error)) return error.code;
    throw error;
  }
};

describe('read-your-writes: the read model starts late', () => {
  let bed: GatewayBed;
  beforeAll(async () => {
    bed = await openGatewayBed('ryw_late', { startProjections: false });
  });
  afterAll(async () => {
    await bed.close();
  });

  it('given no read model running, when request_intake is called, then it answers with the draft as decided; the caller next sees it in get_request and list_requests, another caller does not wait', async () => {
    const intake = (await bed.call(requestIntakeTool, intakeArgs())) as unknown as Intake;
    expect(intake.request).toMatchObject({
      requestId: intake.request_id,
      stage: 'proposed',
      status: 'draft',
      proposedBy: AGENT.actor,
      version: 0,
    });
    // Nothing has applied it: a caller that did not write it is not held up, and misses it.
    expect(await codeOf(bed.call(getRequestTool, { request_id: intake.request_id }, OTHER))).toBe(
      'NOT_FOUND',
    );

    const read = bed.call(getRequestTool, { request_id: intake.request_id });
    setTimeout(() => {
      bed.app.projections.start();
    }, 200);
    const shown = (await read) as { request: Record<string, unknown>; source: string };
    expect(shown.source).toBe('read_model');
    // The read model's document is the one the answer was built from.
    expect(shown.request).toEqual(intake.request);
    const listed = (await bed.call(listRequestsTool, {})) as {
      results: { request_id: string }[];
    };
    expect(listed.results.map((row) => row.request_id)).toContain(intake.request_id);
  });
});

describe('read-your-writes: a long wait reports progress', () => {
  let bed: GatewayBed;
  beforeAll(async () => {
    bed = await openGatewayBed('ryw_progress', { startProjections: false });
  });
  afterAll(async () => {
    await bed.close();
  });

  it('given the read model behind the caller’s intake for over a second, when the caller reads, then progress says it waits; a read that does not wait reports none', async () => {
    const intake = (await bed.call(requestIntakeTool, intakeArgs())) as unknown as Intake;
    const messages: (string | undefined)[] = [];
    const context = {
      ...bed.context(),
      progress: (_progress: number, _total?: number, message?: string) => {
        messages.push(message);
        return Promise.resolve();
      },
    };
    setTimeout(() => {
      bed.app.projections.start();
    }, 1500);
    await runTool(getRequestTool, { request_id: intake.request_id }, context);
    expect(messages).toEqual(['waiting for the read model to show your last write']);

    await runTool(getRequestTool, { request_id: intake.request_id }, context);
    expect(messages).toHaveLength(1);
  });
});

describe('read-your-writes: the read model never catches up', () => {
  let bed: GatewayBed;
  beforeAll(async () => {
    bed = await openGatewayBed('ryw_stuck', { startProjections: false });
  });
  afterAll(async () => {
    await bed.close();
  });

  it('given a stuck read model, when the caller reads after its intake, then the read is answered after the bounded wait, and the next one too', async () => {
    const intake = (await bed.call(requestIntakeTool, intakeArgs())) as unknown as Intake;
    expect(await codeOf(bed.call(getRequestTool, { request_id: intake.request_id }))).toBe(
      'NOT_FOUND',
    );
    expect(await codeOf(bed.call(getRequestTool, { request_id: intake.request_id }))).toBe(
      'NOT_FOUND',
    );
  });
});
