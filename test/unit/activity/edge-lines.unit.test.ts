import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { logToolRefusal } from '../../../mcp-gateway/activity.js';
import { logRefusal, noteRefusal } from '../../../mcp-gateway/http/refusals.js';
import { webhookActivity } from '../../../services/github/webhooks/activity.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { createCapturingLogger } from './capture.js';

/** The refusal, tool and webhook lines: which answers give one, and what it says. */
const answered = (status: number, headers: Record<string, string> = {}): ServerResponse =>
  ({
    statusCode: status,
    getHeader: (name: string) => headers[name],
  }) as unknown as ServerResponse;
const request = { method: 'POST' } as unknown as IncomingMessage;

describe('refused HTTP calls', () => {
  it('given a 403 bearer challenge after the caller was noted, then one line with the token name, reason and scope from the challenge', () => {
    const { logger, records } = createCapturingLogger();
    const res = answered(403, {
      'www-authenticate':
        'Bearer error="insufficient_scope", scope="propose", resource_metadata="x"',
    });
    noteRefusal(res, { actor: 'token:reader' });
    logRefusal(logger, request, res, '/mcp');
    expect(records()).toEqual([
      expect.objectContaining({
        activity: 'refused',
        route: '/mcp',
        method: 'POST',
        status: 403,
        actor: 'token:reader',
        token: 'reader',
        reason: 'insufficient_scope',
        scope: 'propose',
      }),
    ]);
  });

  it('given a 429 with no note, then a line with the default reason; given a 200, a 404 or a route that logs its own, then none', () => {
    const { logger, records } = createCapturingLogger();
    logRefusal(logger, request, answered(429), '/mcp');
    logRefusal(logger, request, answered(200), '/mcp');
    logRefusal(logger, request, answered(404), '/mcp');
    const own = answered(401);
    noteRefusal(own, { logged: true });
    logRefusal(logger, request, own, '/webhooks/github');
    expect(records()).toEqual([expect.objectContaining({ status: 429, reason: 'too_many' })]);
  });
});

describe('MCP tool calls that did not happen', () => {
  const caller = { actor: 'token:agent', grants: {} } as never;

  it('given a missing grant, then a refused line; given a lifecycle refusal of advance_stage, then a rejected proposal with the code', () => {
    const { logger, records } = createCapturingLogger();
    logToolRefusal(
      logger,
      'advance_stage',
      caller,
      new CogitaveError('PERMISSION_DENIED', 'no', { missing: 'propose' }),
      {},
    );
    logToolRefusal(
      logger,
      'advance_stage',
      caller,
      new CogitaveError('FAILED_PRECONDITION', 'dod'),
      {
        request_id: 'req-2026-0001',
        to_stage: 'specified',
      },
    );
    logToolRefusal(logger, 'get_request', caller, new CogitaveError('NOT_FOUND', 'no'), {});
    expect(records()).toEqual([
      expect.objectContaining({
        activity: 'refused',
        route: 'tools/call',
        tool: 'advance_stage',
        status: 403,
        token: 'agent',
        reason: 'insufficient_scope',
        scope: 'propose',
      }),
      expect.objectContaining({
        activity: 'proposal',
        tool: 'advance_stage',
        request: 'req-2026-0001',
        stage: 'specified',
        outcome: 'rejected',
        reason: 'FAILED_PRECONDITION',
      }),
    ]);
  });
});

describe('GitHub deliveries', () => {
  const headers = (extra: Record<string, string> = {}) => ({
    'x-github-event': 'pull_request',
    'x-github-delivery': 'd-1',
    ...extra,
  });

  it('given an applied delivery, then its event, delivery id, action, outcome and request', () => {
    expect(
      webhookActivity(
        { headers: headers(), rawBody: '' },
        { status: 200, body: { status: 'applied', command: 'approveProposal', requestId: 'r-1' } },
        'closed',
      )?.fields,
    ).toEqual({
      event: 'pull_request',
      delivery: 'd-1',
      action: 'closed',
      status: 200,
      outcome: 'applied',
      reason: undefined,
      command: 'approveProposal',
      request: 'r-1',
    });
  });

  it('given a wrong or missing signature, then refused with which; a sender-made header that is not a plain token is left out', () => {
    const refused = { status: 401, body: { status: 401 } };
    expect(
      webhookActivity(
        { headers: headers({ 'x-hub-signature-256': 'sha256=00' }), rawBody: '' },
        refused,
        undefined,
      )?.fields,
    ).toMatchObject({ outcome: 'refused', reason: 'bad_signature', delivery: 'd-1' });
    expect(
      webhookActivity(
        { headers: headers({ 'x-github-delivery': 'a b\n{"forged":1}' }), rawBody: '' },
        refused,
        undefined,
      )?.fields,
    ).toMatchObject({ outcome: 'refused', reason: 'missing_signature', delivery: undefined });
  });

  it('given an ignored delivery or a ping, then no line', () => {
    const quiet = (status: string) =>
      webhookActivity({ headers: headers(), rawBody: '' }, { status: 200, body: { status } }, 'x');
    expect([quiet('ignored'), quiet('pong')]).toEqual([undefined, undefined]);
  });
});
