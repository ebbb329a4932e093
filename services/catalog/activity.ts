import { tokenNameOf, type ActivityLine, type ActivityValue } from '../runtime/activity.js';
import type { IngestReport, RemoveSourceReport } from './ingest.js';

/**
 * A catalog source's change as one activity line: an ingest that ran (not a dry run, not a
 * start-up that found the folder unchanged) or a source removed — with the node counts, never
 * one line per node.
 */
export const ingestActivity = (
  report: Pick<IngestReport, 'source' | 'published' | 'revised' | 'retired' | 'unchanged'>,
  actor: string,
  extra: Readonly<Record<string, ActivityValue>> = {},
): ActivityLine => ({
  activity: 'ingest',
  msg: 'catalog ingested',
  fields: {
    ...extra,
    actor,
    token: tokenNameOf(actor),
    source: report.source,
    added: report.published,
    changed: report.revised,
    removed: report.retired,
    unchanged: report.unchanged,
    outcome: 'ingested',
  },
});

export const sourceRemovedActivity = (
  report: Pick<RemoveSourceReport, 'source' | 'retired'>,
  actor: string,
): ActivityLine => ({
  activity: 'ingest',
  msg: `catalog source ${report.source} removed`,
  fields: {
    actor,
    token: tokenNameOf(actor),
    source: report.source,
    added: 0,
    changed: 0,
    removed: report.retired,
    outcome: 'source_removed',
  },
});
