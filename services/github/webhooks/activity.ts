import type { ActivityLine } from '../../runtime/activity.js';
import { header, type WebhookRequest, type WebhookResponse } from './verify.js';

/**
 * A delivery's activity line: applied, recorded, already applied, refused by the decision it
 * carried, or refused at the door (signature, headers). Deliveries that change nothing (ignored
 * events, pings) get none: GitHub sends many, and the receiver logs them at debug.
 */
const QUIET_OUTCOMES: ReadonlySet<unknown> = new Set(['ignored', 'pong']);

/** Header values of a refused delivery are the sender's: only plain tokens reach the log. */
const PLAIN = /^[A-Za-z0-9._-]{1,100}$/;
const plain = (value: string | undefined): string | undefined =>
  value !== undefined && PLAIN.test(value) ? value : undefined;

const REASON_CHARS = 200;

const refusalReason = (request: WebhookRequest, response: WebhookResponse): string => {
  if (response.status === 401)
    return header(request.headers, 'x-hub-signature-256') ? 'bad_signature' : 'missing_signature';
  if (response.status === 415) return 'content_type';
  if (response.status === 503) return 'unavailable';
  return 'bad_request';
};

export const webhookActivity = (
  request: WebhookRequest,
  response: WebhookResponse,
  action: unknown,
): ActivityLine | undefined => {
  const status = response.body.status;
  if (response.status < 400 && QUIET_OUTCOMES.has(status)) return undefined;
  const event = plain(header(request.headers, 'x-github-event'));
  const delivery = plain(header(request.headers, 'x-github-delivery'));
  const refusedAtDoor = response.status >= 400;
  const outcome = refusedAtDoor ? 'refused' : typeof status === 'string' ? status : 'answered';
  const told = response.body.reason;
  const reason = refusedAtDoor
    ? refusalReason(request, response)
    : typeof told === 'string'
      ? told.slice(0, REASON_CHARS)
      : undefined;
  const requestId = response.body.requestId;
  const command = response.body.command;
  return {
    activity: 'webhook',
    msg: `GitHub delivery ${event ?? '?'}${typeof action === 'string' ? `.${action}` : ''} ${outcome}`,
    fields: {
      event,
      delivery,
      action: typeof action === 'string' ? action : undefined,
      status: response.status,
      outcome,
      reason,
      command: typeof command === 'string' ? command : undefined,
      request: typeof requestId === 'string' ? requestId : undefined,
    },
  };
};
