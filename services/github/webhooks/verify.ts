import type { Webhooks } from '@octokit/webhooks';
import type { Logger } from '../../runtime/logger.js';

/**
 * The first step of a delivery: the signature (`X-Hub-Signature-256`) is checked on the raw
 * body before anything else (missing or wrong → 401 and nothing appended), then the delivery id
 * and the event name, then the body as JSON.
 */
export type HeaderValue = string | readonly string[] | undefined;

export interface WebhookRequest {
  /** Lower-case header names, as node gives them. */
  readonly headers: Readonly<Record<string, HeaderValue>>;
  /** The body exactly as received: the signature covers these bytes. */
  readonly rawBody: string;
}

export interface WebhookResponse {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A delivery whose signature matches its body, with its name, id and payload. */
export interface VerifiedDelivery {
  /** `X-GitHub-Event`. */
  readonly name: string;
  /** `X-GitHub-Delivery`, reused by redeliveries. */
  readonly deliveryId: string;
  readonly payload: unknown;
  /** The payload's `action`, as sent (for logs). */
  readonly action: unknown;
}

const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

export const header = (headers: WebhookRequest['headers'], name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
};

export const problem = (status: number, title: string, detail: string): WebhookResponse => ({
  status,
  body: { type: 'about:blank', title, status, detail },
});

export const unsigned = (): WebhookResponse =>
  problem(401, 'Unauthorized', 'X-Hub-Signature-256 is missing; configure the webhook secret');

/** The delivery, verified; or the answer refusing it. */
export const verifyDelivery = async (
  webhooks: Pick<Webhooks, 'verify'>,
  request: WebhookRequest,
  logger: Logger,
): Promise<{ readonly delivery: VerifiedDelivery } | { readonly refused: WebhookResponse }> => {
  const signature = header(request.headers, 'x-hub-signature-256');
  if (!signature) return { refused: unsigned() };
  const valid = await webhooks.verify(request.rawBody, signature).catch(() => false);
  if (!valid) {
    logger.warn(
      { delivery: header(request.headers, 'x-github-delivery') },
      'webhook signature mismatch',
    );
    return {
      refused: problem(401, 'Unauthorized', 'X-Hub-Signature-256 does not match the body'),
    };
  }
  const name = header(request.headers, 'x-github-event');
  const deliveryId = header(request.headers, 'x-github-delivery');
  if (!name || !deliveryId || !DELIVERY_ID.test(deliveryId)) {
    return {
      refused: problem(
        400,
        'Bad Request',
        'X-GitHub-Event and a valid X-GitHub-Delivery are required',
      ),
    };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(request.rawBody);
  } catch {
    return { refused: problem(400, 'Bad Request', 'the body is not JSON') };
  }
  const action = (payload as { action?: unknown } | null)?.action;
  return { delivery: { name, deliveryId, payload, action } };
};
