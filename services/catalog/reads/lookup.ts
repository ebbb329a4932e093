import { distance } from 'fastest-levenshtein';
import type { ReadScope } from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import { InvalidArgument, NotFound, type CogitaveError } from '../../runtime/errors.js';
import { listUidsAndTitles } from '../read-model/queries.js';
import { edgeTypeNames } from '../vocabulary.js';

/** The catalog read service's refusals: an unknown node (with the closest), moniker or type. */
const closestMatches = (
  needle: string,
  candidates: readonly { uid: string; title: string; label: string }[],
  count = 5,
): { uid: string; title: string; label: string }[] => {
  const lower = needle.toLowerCase();
  return candidates
    .map((candidate) => ({
      candidate,
      score: Math.min(
        distance(lower, candidate.uid.toLowerCase()),
        distance(lower, candidate.title.toLowerCase()),
      ),
    }))
    .sort((a, b) => a.score - b.score || (a.candidate.uid < b.candidate.uid ? -1 : 1))
    .slice(0, count)
    .map(({ candidate }) => candidate);
};

/** NOT_FOUND for a uid or reference, naming the scope's closest nodes. */
export const notFound = async (
  db: Queryable,
  scope: ReadScope,
  uidOrRef: string,
  what: string,
): Promise<CogitaveError> => {
  const closest = closestMatches(uidOrRef, await listUidsAndTitles(db, scope));
  const suggestions = closest.map((c) => `${c.uid} (${c.title})`).join(', ');
  return new NotFound(
    `${what} "${uidOrRef}" is not in the catalog${suggestions ? `; closest: ${suggestions}` : ''}.`,
    { uid: uidOrRef, closest },
  );
};

export const checkMoniker = (
  uidValue: string,
  monikers: readonly string[],
  wanted: string | undefined,
): void => {
  if (wanted === undefined || monikers.includes(wanted)) return;
  throw new NotFound(
    `Node "${uidValue}" has no version for moniker "${wanted}"; it exists in: ${monikers.join(', ')}.`,
    { uid: uidValue, moniker: wanted, monikers },
  );
};

export const checkEdgeTypes = (types: readonly string[] | undefined): void => {
  const unknown = (types ?? []).filter((type) => !edgeTypeNames.includes(type));
  if (unknown.length > 0) {
    throw new InvalidArgument(
      `unknown edge type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known: ${edgeTypeNames.join(', ')}`,
      { unknown },
    );
  }
};
