import { inTransaction } from '../../database/transaction.js';
import { mapDatabaseError } from '../../database/transient.js';
import { CogitaveError } from '../../runtime/errors.js';
import type { AppendResult, ExpectedRevision, StreamAppend } from '../types.js';
import {
  chainRows,
  insertedResult,
  isUniqueViolation,
  prepareAppend,
  sliceInserted,
} from './append-rows.js';
import {
  appendGeneral,
  knownHead,
  rememberRows,
  type AppendPaths,
  type GeneralOutcome,
} from './append-paths.js';
import type { AppendArgs } from './queries.js';
import type { Wake } from './wake.js';

interface Part {
  readonly args: AppendArgs;
  readonly expected: ExpectedRevision;
}

/** Appends to several streams at once: all of them or none. */
export const appendAtomically = async (
  paths: AppendPaths,
  wake: Wake,
  appends: readonly StreamAppend[],
): Promise<AppendResult[]> => {
  const parts: Part[] = appends.map((part) => ({
    args: prepareAppend(part.streamId, part.events, part.options),
    expected: part.options.expectedRevision,
  }));
  const streams = new Set(parts.map((part) => part.args.streamId));
  if (streams.size !== parts.length) {
    throw new CogitaveError(
      'INVALID_ARGUMENT',
      'an atomic append names a stream twice; give each stream one part',
    );
  }
  const fast = await appendAtomicallyFast(paths, wake, parts);
  return fast ?? appendAtomicallyGeneral(paths, wake, parts);
};

/**
 * When every head is known: one item of the group commit (one INSERT, one transaction).
 * Undefined when a head is unknown or a race was lost (then: the general path).
 */
const appendAtomicallyFast = async (
  paths: AppendPaths,
  wake: Wake,
  parts: readonly Part[],
): Promise<AppendResult[] | undefined> => {
  const known = parts.map((part) => knownHead(paths, part.args.streamId, part.expected));
  if (!known.every((head) => head !== undefined)) return undefined;
  const chained = parts.map((part, index) => chainRows(part.args, known[index] ?? 'new'));
  try {
    const inserted = await paths.committer.submit(chained.flat());
    rememberRows(paths, chained.flat());
    wake.appended();
    return sliceInserted(chained, inserted).map(insertedResult);
  } catch (error) {
    if (!isUniqueViolation(error)) throw mapDatabaseError(error);
    for (const part of parts) paths.heads.forget(part.args.streamId);
    return undefined;
  }
};

/**
 * The general path, one transaction; streams locked in name order, so two atomic appends over
 * the same streams cannot deadlock.
 */
const appendAtomicallyGeneral = async (
  paths: AppendPaths,
  wake: Wake,
  parts: readonly Part[],
): Promise<AppendResult[]> => {
  const order = parts
    .map((part, index) => ({ part, index }))
    .sort((x, y) => (x.part.args.streamId < y.part.args.streamId ? -1 : 1));
  type Done = { index: number; outcome: GeneralOutcome };
  const attempt = (): Promise<Done[]> =>
    inTransaction(paths.database.pool, async (client) => {
      const done: Done[] = [];
      for (const { part, index } of order) {
        const outcome = await appendGeneral(paths, client, part.args, part.expected, false);
        done.push({ index, outcome });
      }
      return done;
    });
  let outcomes: Done[] | undefined;
  for (let tries = 1; !outcomes; tries += 1) {
    try {
      outcomes = await attempt();
    } catch (error) {
      // A fast-path writer took a revision between a read and the insert: all of it again
      // (each lost race is someone else's progress, so this ends).
      if (tries >= 50 || !isUniqueViolation(error, 'events_stream_revision_key')) throw error;
    }
  }
  const results: AppendResult[] = new Array<AppendResult>(parts.length);
  let wrote = false;
  for (const { index, outcome } of outcomes) {
    results[index] = outcome.result;
    wrote ||= outcome.wrote;
    const streamId = parts[index]?.args.streamId;
    if (outcome.head && streamId !== undefined) paths.heads.remember(streamId, outcome.head);
  }
  if (wrote) wake.appended();
  return results;
};
