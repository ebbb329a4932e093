import {
  EventStoreDBClient,
  NO_STREAM,
  END,
  START,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamSubscription,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEsdbDouble, type EsdbDouble } from '../../support/esdb-double/index.js';

/**
 * Catch-up subscriptions to `$all` on the double, through the official client
 * (https://developers.eventstore.com/clients/grpc/subscriptions.html): history first, then
 * `caughtUp`, then live events; exclusive start positions; server-side filters and their
 * checkpoints.
 */
let double: EsdbDouble;
let client: EventStoreDBClient;

beforeAll(async () => {
  double = await startEsdbDouble();
  client = EventStoreDBClient.connectionString(double.url);
});
afterAll(async () => {
  await client.dispose();
  await double.close();
  expect(double.violations).toEqual([]);
});

let unique = 0;
const prefix = (): string => `sub${String((unique += 1))}x${Date.now().toString(36)}-`;
const events = (count: number, type = 'Ticked') =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type, data: { n } }));

interface Seen {
  readonly events: ResolvedEvent[];
  readonly caughtUpAfter: number[];
  readonly checkpoints: Position[];
}

/** Reads until `until` holds (checked after each message), then unsubscribes. */
const watch = async (
  subscription: AllStreamSubscription,
  until: (seen: Seen) => boolean,
  onCaughtUp?: () => void,
  checkpoints: Position[] = [],
): Promise<Seen> => {
  const seen: Seen = { events: [], caughtUpAfter: [], checkpoints };
  subscription.on('caughtUp', () => {
    seen.caughtUpAfter.push(seen.events.length);
    onCaughtUp?.();
    if (until(seen)) void subscription.unsubscribe();
  });
  const timer = setTimeout(() => void subscription.unsubscribe(), 20_000);
  try {
    for await (const event of subscription) {
      seen.events.push(event);
      if (until(seen)) break;
    }
  } finally {
    clearTimeout(timer);
    await subscription.unsubscribe();
  }
  return seen;
};

describe('subscriptions to $all', () => {
  it.each([
    ['START', START, [0n, 1n, 2n, 3n, 4n], 3],
    ['END', END, [3n, 4n], 0],
  ] as const)(
    'given three events, when subscribing from %s with a stream filter, then the history after the start comes first, caughtUp follows it, then live events arrive',
    async (_label, fromPosition, revisions, caughtUpAfter) => {
      const p = prefix();
      await client.appendToStream(`${p}a`, events(3), { expectedRevision: NO_STREAM });
      const seen = await watch(
        client.subscribeToAll({ fromPosition, filter: streamNameFilter({ prefixes: [p] }) }),
        (s) => s.events.length === revisions.length,
        () => void client.appendToStream(`${p}a`, events(2), { expectedRevision: 2n }),
      );
      expect(seen.events.map((e) => e.event?.revision)).toEqual(revisions);
      // caughtUp is reported once, after the history was sent.
      expect(seen.caughtUpAfter).toEqual([caughtUpAfter]);
    },
  );

  it('given a position, when subscribing from it, then delivery starts with the next event (exclusive)', async () => {
    const p = prefix();
    await client.appendToStream(`${p}a`, events(4), { expectedRevision: NO_STREAM });
    const filter = streamNameFilter({ prefixes: [p] });
    const first = await watch(client.subscribeToAll({ filter }), (s) => s.events.length === 2);
    const resumeAt = first.events[1]!.event!.position!;
    const second = await watch(
      client.subscribeToAll({ fromPosition: resumeAt, filter }),
      (s) => s.events.length === 2,
    );
    expect(second.events.map((e) => e.event?.revision)).toEqual([2n, 3n]);
  });

  it('given system events in the log, when subscribing without a filter they arrive, and with excludeSystemEvents they do not', async () => {
    const p = prefix();
    await client.appendToStream(`${p}a`, events(1), { expectedRevision: NO_STREAM });
    const everything = await watch(client.subscribeToAll(), (s) =>
      s.events.some((e) => e.event?.streamId === `${p}a`),
    );
    expect(everything.events[0]?.event?.streamId).toMatch(/^\$/);
    const filtered = await watch(client.subscribeToAll({ filter: excludeSystemEvents() }), (s) =>
      s.events.some((e) => e.event?.streamId === `${p}a`),
    );
    expect(filtered.events.every((e) => !e.event?.type.startsWith('$'))).toBe(true);
  });

  it('given many events the filter rejects, when subscribing with an event-type filter, then checkpoints arrive every 32 × multiplier events considered and at the end of the catch-up', async () => {
    const p = prefix();
    await client.appendToStream(`${p}noise`, events(70, 'Noise'), { expectedRevision: NO_STREAM });
    await client.appendToStream(`${p}signal`, events(1, `Signal${p}`), {
      expectedRevision: NO_STREAM,
    });
    const checkpoints: Position[] = [];
    const from = (
      await client.appendToStream(`${p}mark`, events(1, 'Mark'), { expectedRevision: NO_STREAM })
    ).position!;
    await client.appendToStream(`${p}noise2`, events(70, 'Noise'), { expectedRevision: NO_STREAM });
    await client.appendToStream(`${p}signal2`, events(1, `Signal${p}`), {
      expectedRevision: NO_STREAM,
    });
    const seen = await watch(
      client.subscribeToAll({
        fromPosition: from,
        filter: eventTypeFilter({
          prefixes: [`Signal${p}`],
          checkpointInterval: 1,
          checkpointReached: (_subscription, position) => {
            checkpoints.push(position);
          },
        }),
      }),
      (s) => s.caughtUpAfter.length > 0,
      undefined,
      checkpoints,
    );
    expect(seen.events.map((e) => e.event?.streamId)).toEqual([`${p}signal2`]);
    // 70 noise events (and their system links) considered: at least two interval checkpoints.
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    const commits = checkpoints.map((c) => c.commit);
    expect(commits).toEqual([...commits].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });

  it('given a position inside a record, when subscribing from it, then the subscription fails with an invalid position', async () => {
    const { position } = await client.appendToStream(`${prefix()}a`, events(1), {
      expectedRevision: NO_STREAM,
    });
    const subscription = client.subscribeToAll({
      fromPosition: { commit: position!.commit + 3n, prepare: position!.prepare + 3n },
    });
    const error = await (async () => {
      try {
        for await (const _ of subscription) return undefined;
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message).toContain('invalid position');
  });
});
