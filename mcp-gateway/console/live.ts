import type { ServerResponse } from 'node:http';
import type { ChangeSignal } from '../../projections/change-feed.js';
import { readScopeOf } from '../../services/access/grants.js';
import { modernDeliveryFor, scopeDelivery } from '../server/subscriptions.js';
import type { GatewayServices } from '../services.js';
import { SECURITY_HEADERS } from './http.js';
import type { ConsoleIdentity } from './session.js';

/**
 * Live updates: one server-sent-event stream per open page, fed by the same change feed as
 * MCP notifications (so changes made through any replica arrive, by LISTEN/NOTIFY) and
 * narrowed by the same rule (`scopeDelivery`): a page hears only of what its login may read.
 * An event names the changed resource URIs; the page decides whether to re-render.
 */
const KEEP_ALIVE_MS = 15_000;

export const serveLive = (
  res: ServerResponse,
  identity: ConsoleIdentity,
  changes: GatewayServices['changes'],
  keepAliveMs = KEEP_ALIVE_MS,
): void => {
  const scope = readScopeOf(identity.caller.grants);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  // A comment first, so the browser's EventSource reports the stream open at once.
  res.write(': live\n\n');
  const send = (signal: ChangeSignal): void => {
    const delivery = scopeDelivery(scope, signal, modernDeliveryFor(signal));
    if (delivery.updated.length === 0 && !delivery.listChanged) return;
    res.write(
      `event: change\ndata: ${JSON.stringify({ uris: delivery.updated, listChanged: delivery.listChanged, resync: signal.kind === 'resync' })}\n\n`,
    );
  };
  const stop = changes.onChange(send);
  const timer = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  res.once('close', () => {
    clearInterval(timer);
    stop();
  });
};
