import type { ProjectionStatus } from '../../../projections/types.js';
import { isUnrestricted, readScopeOf } from '../../../services/access/grants.js';
import type { AuditStatus } from '../../../services/audit/service.js';
import { isPosition } from '../../../services/event-store/position.js';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { html, layout } from '../html.js';
import { pagination } from './requests.js';
import { pageSize, type ConsoleRequest } from '../http.js';
import {
  integritySection,
  logSection,
  readModelsSection,
  type AuditLogFilters,
} from './audit-sections.js';

/**
 * Audit: the last verification and published digest, the event log newest first (filtered by
 * stream prefix, type and actor) and each read model's status and lag. The log is not
 * filtered by product, so only a login that may read everything (the local maintainer, a
 * token granted every type and product) sees this page; anyone else is refused.
 */
export interface AuditSources {
  readonly status: () => Promise<AuditStatus>;
  /** The newest events first, at most `limit`, of the given streams and types. */
  readonly events: (filter: {
    readonly streamPrefix?: string | undefined;
    readonly type?: string | undefined;
    /** Exclusive keyset: only events older than this position. */
    readonly before?: Position | undefined;
    readonly limit: number;
  }) => Promise<readonly RecordedEvent[]>;
  /** This process's read models (empty on a gateway without a projector). */
  readonly projections: () => readonly ProjectionStatus[];
}

const EVENTS_SHOWN = 100;
/** How many newest events are read to find those of one actor. */
const ACTOR_SCAN = 1000;

const optional = (value: string | null): string | undefined =>
  value === null || value.trim() === '' ? undefined : value.trim();

/** The page's query: the log's filters, where to start and how many to show. */
interface AuditQuery extends AuditLogFilters {
  readonly before: Position | undefined;
  readonly limit: number;
}

const auditQuery = (query: URLSearchParams): AuditQuery => {
  const before = optional(query.get('before'));
  if (before !== undefined && !isPosition(before))
    throw new InvalidArgument(
      'before must be a log position as the event log shows it (0000000000000001-0000000000000002).',
    );
  return {
    stream: optional(query.get('stream')),
    type: optional(query.get('type')),
    actor: optional(query.get('actor')),
    before,
    limit: pageSize(query.get('limit'), EVENTS_SHOWN),
  };
};

/** The page's own address with these filters, from `from` down (the newest page: none). */
const logHref = (query: AuditQuery, from: string | undefined): string => {
  const params = new URLSearchParams();
  if (query.stream !== undefined) params.set('stream', query.stream);
  if (query.type !== undefined) params.set('type', query.type);
  if (query.actor !== undefined) params.set('actor', query.actor);
  if (query.limit !== EVENTS_SHOWN) params.set('limit', String(query.limit));
  if (from !== undefined) params.set('before', from);
  const text = params.toString();
  return `/console/audit${text === '' ? '' : `?${text}`}#log`;
};

/** The events shown, and the position the next (older) page starts below, if any. */
const readLog = async (
  sources: AuditSources,
  query: AuditQuery,
): Promise<{ shown: readonly RecordedEvent[]; olderFrom: string | undefined }> => {
  const { stream, type, actor, before, limit } = query;
  const scan = actor === undefined ? limit : ACTOR_SCAN;
  const events = await sources.events({ streamPrefix: stream, type, before, limit: scan });
  const matching =
    actor === undefined ? events : events.filter((event) => event.metadata.actor === actor);
  const shown = matching.slice(0, limit);
  // Keyset: the next page starts below the last event shown (or, when one actor's events were
  // too few in the scanned window, below the window).
  const olderFrom =
    shown.length === limit
      ? shown.at(-1)?.position
      : events.length === scan
        ? events.at(-1)?.position
        : undefined;
  return { shown, olderFrom };
};

export const renderAudit = async (
  request: ConsoleRequest,
  sources: AuditSources | undefined,
): Promise<string> => {
  const identity = request.identity;
  if (!identity) throw new Error('the audit page needs a login');
  const caller = identity.caller;
  if (!isUnrestricted(readScopeOf(caller.grants))) {
    throw new CogitaveError(
      'PERMISSION_DENIED',
      `The audit log spans every product and type; ${caller.actor} is granted only some. Ask an operator for a token that reads everything.`,
    );
  }
  if (!sources) throw new CogitaveError('UNAVAILABLE', 'This process serves no audit data.');
  const query = auditQuery(request.query);
  const [status, { shown, olderFrom }] = await Promise.all([
    sources.status(),
    readLog(sources, query),
  ]);
  const pages = pagination('Event log pages', [
    {
      href: query.before === undefined ? undefined : logHref(query, undefined),
      text: 'Newest events',
    },
    {
      href: olderFrom === undefined ? undefined : logHref(query, olderFrom),
      text: 'Older events',
      rel: 'next',
    },
  ]);
  const main = html`<h1>Audit</h1>
    ${integritySection(status)} ${readModelsSection(sources.projections())}
    ${logSection(query, shown, olderFrom, pages)}`;
  return layout({
    title: 'Audit',
    section: 'audit',
    who: identity.actor,
    csrf: request.csrf,
    live: ['*'],
    main,
  });
};
