/* eslint-disable @typescript-eslint/no-deprecated --
 * The low-level Server on purpose (see factory.ts). */
import type { Server } from '@modelcontextprotocol/server';
import type { ChangeSignal } from '../../projections/change-feed.js';
import type { ReadScope } from '../../services/access/grants.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { Caller } from '../registry.js';
import type { GatewayServices } from '../services.js';
import type { Era } from './factory.js';
import { invalidParams } from './protocol.js';
import { assertUri, parseResourceUri, subscriptionProblem } from './resources.js';
import { spaced } from './spacing.js';
import { ConnectionSubscriptions, modernDeliveryFor, scopeDelivery } from './subscriptions.js';

/** At most one `notifications/resources/list_changed` per session in this window. */
const LIST_CHANGED_SPACING_MS = 100;

export interface Follower {
  readonly caller: Caller;
  readonly scope: ReadScope;
  readonly era: Era;
  readonly services: GatewayServices;
  readonly logger: Logger;
}

/** 2025-11-25's resources/subscribe and resources/unsubscribe, into `subscriptions`. */
const serveSubscriptions = (
  server: Server,
  { caller, scope }: Follower,
  subscriptions: ConnectionSubscriptions,
): void => {
  const subscribeUri = (uri: string): void => {
    assertUri(uri);
    // Another scheme names nothing of ours: accepted, and never notified.
    if (!uri.startsWith('cogitave:')) return;
    if (!parseResourceUri(uri))
      throw invalidParams(
        `Cannot subscribe to ${uri}: use cogitave://{type}/{id} or a collection cogitave://{type}/`,
      );
    const problem = subscriptionProblem(scope, caller.actor, uri);
    if (problem !== undefined) throw invalidParams(`Cannot subscribe: ${problem}`);
    subscriptions.add(uri);
  };
  server.setRequestHandler('resources/subscribe', (request) => {
    subscribeUri(request.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    subscriptions.remove(request.params.uri);
    return {};
  });
};

/** Connection-scoped servers push the change feed's notices themselves, until they close. */
export const followChanges = (server: Server, follower: Follower): void => {
  const { scope, era, services, logger } = follower;
  const subscriptions = new ConnectionSubscriptions();
  if (era === 'legacy') serveSubscriptions(server, follower, subscriptions);
  const notDelivered = (error: unknown): void => {
    logger.debug({ err: error }, 'change notification not delivered');
  };
  // "The list changed" carries nothing but the fact: one per window says all a burst says.
  const listChanged = spaced(LIST_CHANGED_SPACING_MS, () => {
    server.sendResourceListChanged().catch(notDelivered);
  });
  const deliver = async (signal: ChangeSignal): Promise<void> => {
    const delivery = scopeDelivery(
      scope,
      signal,
      era === 'legacy' ? subscriptions.deliveryFor(signal) : modernDeliveryFor(signal),
    );
    for (const uri of delivery.updated) await server.sendResourceUpdated({ uri });
    if (delivery.listChanged) listChanged.request();
  };
  const stop = services.changes.onChange((signal) => {
    deliver(signal).catch(notDelivered);
  });
  const previous = server.onclose;
  server.onclose = () => {
    stop();
    listChanged.stop();
    previous?.();
  };
};
