import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { Command, InvalidArgumentError, Option } from 'commander';
import { exportLog } from '../../services/audit/export.js';
import { parsePosition } from '../../services/event-store/position.js';
import type { EventFilter, Position, RecordedEvent } from '../../services/event-store/types.js';
import { MAX_READ_COUNT } from '../../services/event-store/validation.js';
import { parseCount, parseRevision, withApp } from './context.js';
import { writeEvent } from './format.js';

interface ReadFlags {
  backwards?: boolean;
  from?: bigint;
  limit: number;
  json?: boolean;
}

interface TailFlags {
  last: number;
  fromStart?: boolean;
  from?: Position;
  streamPrefix?: string[];
  type?: string[];
  limit?: number;
  follow: boolean;
  json?: boolean;
}

const readCommand = new Command('read')
  .description('Print the events of one stream, oldest first (or newest first with --backwards).')
  .argument('<stream>', 'stream id, e.g. request-req-2026-0001')
  .option('--backwards', 'newest first')
  .option('--from <revision>', 'start at this revision (inclusive)', parseRevision)
  .addOption(
    new Option('--limit <n>', 'at most n events')
      .argParser(parseCount(MAX_READ_COUNT))
      .default(100),
  )
  .option('--json', 'one JSON object per line')
  .action(async (stream: string, flags: ReadFlags) => {
    await withApp(true, async ({ eventStore }) => {
      const events = await eventStore.readStream(stream, {
        direction: flags.backwards ? 'backwards' : 'forwards',
        fromRevision: flags.from,
        maxCount: flags.limit,
      });
      if (events.length === 0 && !flags.json) {
        process.stderr.write(
          `stream "${stream}" has no events${flags.from === undefined ? '' : ` from revision ${flags.from}`}\n`,
        );
      }
      for (const event of events) writeEvent(event, flags.json ?? false);
    });
  });

const tailCommand = new Command('tail')
  .description(
    'Print the newest events of the global log, then follow new ones as they commit (Ctrl-C stops).',
  )
  .addOption(
    new Option('--last <n>', 'start with the newest n events')
      .argParser(parseCount(MAX_READ_COUNT))
      .default(10),
  )
  .addOption(
    new Option('--from-start', 'start at the beginning of the log').conflicts(['from', 'last']),
  )
  .addOption(
    new Option('--from <position>', 'start after this position (as printed in the first column)')
      .argParser(parsePositionFlag)
      .conflicts('last'),
  )
  .option('--stream-prefix <prefix...>', 'only streams whose id starts with one of these')
  .option('--type <type...>', 'only these event types')
  .addOption(
    new Option('--limit <n>', 'stop after n events').argParser(parseCount(Number.MAX_SAFE_INTEGER)),
  )
  .option('--no-follow', 'stop once every committed event is printed')
  .option('--json', 'one JSON object per line')
  .action(async (flags: TailFlags) => {
    const filter: EventFilter = { streamPrefixes: flags.streamPrefix, eventTypes: flags.type };
    await withApp(true, async ({ eventStore }) => {
      const json = flags.json ?? false;
      let printed = 0;
      const print = (event: RecordedEvent): boolean => {
        writeEvent(event, json);
        printed += 1;
        return flags.limit !== undefined && printed >= flags.limit;
      };
      let fromPosition = flags.from;
      if (!flags.fromStart && fromPosition === undefined) {
        // The end of the log first, then the newest matching events up to it: anything committed
        // in between comes through the subscription, never twice and never skipped.
        const [end] = await eventStore.readAll({ direction: 'backwards', maxCount: 1 });
        fromPosition = end?.position;
        const newest = await eventStore.readAll({
          direction: 'backwards',
          maxCount: flags.last,
          filter,
        });
        const upToEnd = newest.filter(
          (event) => end !== undefined && event.position <= end.position,
        );
        for (const event of upToEnd.reverse()) if (print(event)) return;
      }
      const stop = new AbortController();
      const onSignal = (): void => {
        stop.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const subscription = eventStore.subscribeToAll({
        fromPosition,
        filter,
        signal: stop.signal,
        onCaughtUp: () => {
          if (!flags.follow) stop.abort();
        },
      });
      try {
        for await (const event of subscription) if (print(event)) break;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await subscription.close();
      }
    });
  });

function parsePositionFlag(value: string): Position {
  try {
    return parsePosition(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** Writes a line, waiting for the stream to drain when its buffer is full. */
const lineWriter =
  (out: Writable) =>
  async (line: string): Promise<void> => {
    if (!out.write(line)) await once(out, 'drain');
  };

const exportCommand = new Command('export')
  .description(
    'Write the whole log as JSON Lines, one event per line in log order, with its stored content, its stream chain (prevHash, hash) and the global chain (sequence, logHash): what an auditor checks with their own code (see services/audit/README.md).',
  )
  .option('--out <file>', 'write to this file instead of stdout')
  .action(async (flags: { out?: string }) => {
    await withApp(true, async ({ eventStore }) => {
      const out = flags.out === undefined ? process.stdout : createWriteStream(resolve(flags.out));
      const summary = await exportLog({ eventStore, write: lineWriter(out) });
      if (out !== process.stdout) {
        out.end();
        await once(out, 'finish');
      }
      process.stderr.write(
        `exported ${summary.events} events${summary.logHash ? ` (last logHash ${summary.logHash})` : ''}\n`,
      );
    });
  });

export const eventsCommand = new Command('events')
  .description('Read the event log: one stream, or the whole log as it grows; export it for audit.')
  .addCommand(readCommand)
  .addCommand(tailCommand)
  .addCommand(exportCommand);
