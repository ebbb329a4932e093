import type { ProjectionStatus } from '../../../projections/types.js';
import { isUnrestricted, readScopeOf } from '../../../services/access/grants.js';
import type { AuditStatus } from '../../../services/audit/service.js';
import { isPosition } from '../../../services/event-store/position.js';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { html, layout, time } from '../html.js';
import { pagination } from './requests.js';
import { pageSize, type ConsoleRequest } from '../http.js';

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
  const stream = optional(request.query.get('stream'));
  const type = optional(request.query.get('type'));
  const actor = optional(request.query.get('actor'));
  const before = optional(request.query.get('before'));
  if (before !== undefined && !isPosition(before))
    throw new InvalidArgument(
      'before must be a log position as the event log shows it (0000000000000001-0000000000000002).',
    );
  const limit = pageSize(request.query.get('limit'), EVENTS_SHOWN);
  const scan = actor === undefined ? limit : ACTOR_SCAN;
  const [status, events] = await Promise.all([
    sources.status(),
    sources.events({ streamPrefix: stream, type, before, limit: scan }),
  ]);
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
  const logHref = (from: string | undefined): string => {
    const query = new URLSearchParams();
    if (stream !== undefined) query.set('stream', stream);
    if (type !== undefined) query.set('type', type);
    if (actor !== undefined) query.set('actor', actor);
    if (limit !== EVENTS_SHOWN) query.set('limit', String(limit));
    if (from !== undefined) query.set('before', from);
    const text = query.toString();
    return `/console/audit${text === '' ? '' : `?${text}`}#log`;
  };
  const pages = pagination('Event log pages', [
    { href: before === undefined ? undefined : logHref(undefined), text: 'Newest events' },
    {
      href: olderFrom === undefined ? undefined : logHref(olderFrom),
      text: 'Older events',
      rel: 'next',
    },
  ]);
  const digest = status.latestDigest;
  const verification = status.lastVerification;
  const projections = sources.projections();
  const main = html`<h1>Audit</h1>
    <section aria-labelledby="integrity">
      <h2 id="integrity">Integrity</h2>
      <dl class="facts">
        <dt>Last published digest</dt>
        <dd>
          ${
            digest
              ? html`${digest.digest.events} events, root
                  <code>${digest.digest.root ?? 'none'}</code>, made
                  ${time(digest.madeAt)}${digest.digest.signature ? ', signed' : ', unsigned'};
                  published to ${digest.publishedTo.join(', ') || 'nowhere'}`
              : 'none yet'
          }
        </dd>
        <dt>Last verification</dt>
        <dd>
          ${
            verification
              ? html`<strong>${verification.ok ? 'passed' : 'FAILED'}</strong>:
                  ${verification.events} events in ${verification.streams} streams
                  (${verification.sealed} compared with the seal), finished
                  ${time(verification.finishedAt)}${
                    verification.problem ? html`; ${JSON.stringify(verification.problem)}` : ''
                  }`
              : html`never; run <code>cogitave verify</code>`
          }
        </dd>
      </dl>
    </section>
    <section aria-labelledby="projections-title">
      <h2 id="projections-title">Read models</h2>
      ${
        projections.length === 0
          ? html`<p class="muted">No read model runs in this process.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Read model</th>
                  <th scope="col">State</th>
                  <th scope="col">Leader</th>
                  <th scope="col">Position</th>
                  <th scope="col">Lag (events)</th>
                  <th scope="col">Lag (s)</th>
                  <th scope="col">Applied</th>
                </tr>
              </thead>
              <tbody>
                ${projections.map(
                  (p) =>
                    html`<tr>
                      <th scope="row">${p.name}</th>
                      <td>
                        ${p.state}${p.error ? html` <span class="error">${p.error.message}</span>` : ''}
                      </td>
                      <td>${p.leader ? 'yes' : 'no'}</td>
                      <td><code>${p.position ?? '–'}</code></td>
                      <td>${p.lagEvents ?? '?'}</td>
                      <td>${p.lagSeconds ?? '?'}</td>
                      <td>${p.eventsApplied}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    <section aria-labelledby="log">
      <h2 id="log">Event log, newest first</h2>
      <form class="filters" method="get" action="/console/audit" aria-label="Filter the event log">
        <p>
          <label for="a-stream">Stream prefix</label>
          <input id="a-stream" name="stream" value="${stream ?? ''}" placeholder="request-" />
        </p>
        <p>
          <label for="a-type">Type</label>
          <input id="a-type" name="type" value="${type ?? ''}" placeholder="StageAdvanced" />
        </p>
        <p>
          <label for="a-actor">Actor</label>
          <input id="a-actor" name="actor" value="${actor ?? ''}" placeholder="token:ci-bot" />
        </p>
        <p><button type="submit">Filter</button> <a href="/console/audit">Clear</a></p>
      </form>
      <table class="log">
        <thead>
          <tr>
            <th scope="col">Position</th>
            <th scope="col">Stream</th>
            <th scope="col">Rev</th>
            <th scope="col">Type</th>
            <th scope="col">Actor</th>
            <th scope="col">At</th>
            <th scope="col">Hash</th>
          </tr>
        </thead>
        <tbody>
          ${shown.map(
            (event) =>
              html`<tr>
                <td><code>${event.position}</code></td>
                <td>${event.streamId}</td>
                <td>${String(event.revision)}</td>
                <td>${event.type}</td>
                <td>${event.metadata.actor}</td>
                <td>${time(event.metadata.at)}</td>
                <td><code title="${event.hash}">${event.hash.slice(0, 12)}</code></td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${shown.length === 0 ? html`<p class="muted">No events match${olderFrom === undefined ? '' : ' among these; older ones may'}.</p>` : ''}
      ${pages}
    </section>`;
  return layout({
    title: 'Audit',
    section: 'audit',
    who: identity.actor,
    csrf: request.csrf,
    live: ['*'],
    main,
  });
};
