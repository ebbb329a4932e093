import { logActivity, tokenNameOf } from '../services/runtime/activity.js';
import type { CogitaveError } from '../services/runtime/errors.js';
import type { Logger } from '../services/runtime/logger.js';
import type { Caller } from './registry.js';

/**
 * The activity lines of an MCP tool call that did not happen: a refusal for lack of a grant
 * (`refused`, as HTTP's 403 would be; over HTTP the endpoint refuses such calls before the
 * server runs them, so this is the line of other transports and of anything that slips past),
 * and a proposal the lifecycle refused (`proposal`, outcome `rejected`, with the error code).
 * A proposal that was made is logged once its events commit (services/activity/), whatever
 * path made it. Other tools' errors are the caller's to read, not the operator's.
 */
const PROPOSAL_TOOLS: ReadonlySet<string> = new Set(['request_intake', 'advance_stage']);

const argument = (args: unknown, name: string): string | undefined => {
  if (typeof args !== 'object' || args === null) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};

export const logToolRefusal = (
  logger: Logger,
  tool: string,
  caller: Caller,
  error: CogitaveError,
  args: unknown,
): void => {
  const who = { actor: caller.actor, token: tokenNameOf(caller.actor) };
  if (error.code === 'PERMISSION_DENIED') {
    const missing = error.details.missing;
    logActivity(logger, {
      activity: 'refused',
      msg: `${tool} refused (insufficient_scope)`,
      fields: {
        route: 'tools/call',
        tool,
        status: 403,
        ...who,
        reason: 'insufficient_scope',
        scope: typeof missing === 'string' ? missing : undefined,
      },
    });
    return;
  }
  if (!PROPOSAL_TOOLS.has(tool)) return;
  const request = argument(args, 'request_id');
  logActivity(logger, {
    activity: 'proposal',
    msg: `${tool} rejected (${error.code})`,
    fields: {
      ...who,
      tool,
      request,
      stage: tool === 'request_intake' ? 'proposed' : argument(args, 'to_stage'),
      outcome: 'rejected',
      reason: error.code,
    },
  });
};
