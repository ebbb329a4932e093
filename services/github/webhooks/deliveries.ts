import { v5 as uuidv5 } from 'uuid';
import { createBookkeepingLog, type BookkeepingLog } from '../../commands/bookkeeping.js';
import type { CommandMetadata } from '../../commands/metadata.js';
import { WrongExpectedVersion } from '../../event-store/errors.js';
import type { EventStore } from '../../event-store/types.js';
import type { Decision } from './facts.js';

/**
 * A delivery (`X-GitHub-Delivery`, reused by redeliveries) is applied at most once: after its
 * command, `GitHubDeliveryApplied` is appended to `github-delivery-<id>` with `no_stream`, and a
 * delivery whose stream exists answers "already applied". The command id is derived from the
 * delivery id, so a crash between the command and that record makes the redelivered command a
 * no-op rather than a second decision. The record is bookkeeping (`commands/bookkeeping.ts`):
 * this module's log may append nothing else.
 */
export const DELIVERY_EVENT_TYPE = 'GitHubDeliveryApplied';
export const deliveryStreamId = (deliveryId: string): string => `github-delivery-${deliveryId}`;

/** Namespace of command and event ids derived from delivery ids. */
const DELIVERY_NAMESPACE = '8c3f2a4e-2d7b-5e61-b0a9-4f5d6c7e8a90';

/** A deterministic id of something a delivery causes (`<deliveryId>:<what>`). */
export const deliveryUuid = (name: string): string => uuidv5(name, DELIVERY_NAMESPACE);

export interface GitHubDeliveryApplied {
  readonly type: typeof DELIVERY_EVENT_TYPE;
  readonly data: {
    readonly deliveryId: string;
    readonly event: string;
    readonly action: string;
    readonly command: Decision['command'];
    readonly requestId: string;
    readonly proposalId?: string;
    /** Revision of the request stream after the command. */
    readonly requestRevision: string;
  };
}

export const openDeliveryLog = (eventStore: EventStore): BookkeepingLog =>
  createBookkeepingLog(eventStore, [DELIVERY_EVENT_TYPE]);

export const deliveryApplied = async (
  eventStore: EventStore,
  deliveryId: string,
): Promise<boolean> =>
  (await eventStore.readStream(deliveryStreamId(deliveryId), { maxCount: 1 })).length > 0;

/** Records the delivery as applied; a concurrent copy of it recording first is the same outcome. */
export const recordDeliveryApplied = async (
  log: BookkeepingLog,
  recorded: GitHubDeliveryApplied['data'],
  meta: CommandMetadata,
): Promise<void> => {
  const { deliveryId } = recorded;
  try {
    await log.record(
      deliveryStreamId(deliveryId),
      [
        {
          id: deliveryUuid(`${deliveryId}:recorded`),
          type: DELIVERY_EVENT_TYPE,
          data: recorded,
          metadata: {
            actor: meta.actor,
            at: meta.at,
            correlationId: deliveryId,
            causationId: deliveryId,
          },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
  } catch (error) {
    // A concurrent copy of this delivery recorded it first: same outcome.
    if (!(error instanceof WrongExpectedVersion)) throw error;
  }
};
