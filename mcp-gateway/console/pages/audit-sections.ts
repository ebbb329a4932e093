import type { ProjectionStatus } from '../../../projections/types.js';
import type { AuditStatus } from '../../../services/audit/service.js';
import type { RecordedEvent } from '../../../services/event-store/types.js';
import { html, time, type Html } from '../html.js';

/** The audit page's sections (audit.ts reads and pages; these only render). */

/** The event log's filters, as the page's query gives them. */
export interface AuditLogFilters {
  readonly stream: string | undefined;
  readonly type: string | undefined;
  readonly actor: string | undefined;
}

export const integritySection = (status: AuditStatus): Html => {
  const digest = status.latestDigest;
  const verification = status.lastVerification;
  return html`<section aria-labelledby="integrity">
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
            ? html`<strong>${verification.ok ? 'passed' : 'FAILED'}</strong>: ${verification.events}
                events in ${verification.streams} streams (${verification.sealed} compared with the
                seal), finished
                ${time(verification.finishedAt)}${
                  verification.problem ? html`; ${JSON.stringify(verification.problem)}` : ''
                }`
            : html`never; run <code>cogitave verify</code>`
        }
      </dd>
    </dl>
  </section>`;
};

export const readModelsSection = (projections: readonly ProjectionStatus[]): Html =>
  html`<section aria-labelledby="projections-title">
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
  </section>`;

const filterForm = ({ stream, type, actor }: AuditLogFilters): Html =>
  html`<form class="filters" method="get" action="/console/audit" aria-label="Filter the event log">
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
  </form>`;

/** The log, newest first: `shown`, and whether older events may match (`olderFrom`). */
export const logSection = (
  filters: AuditLogFilters,
  shown: readonly RecordedEvent[],
  olderFrom: string | undefined,
  pages: Html,
): Html =>
  html`<section aria-labelledby="log">
    <h2 id="log">Event log, newest first</h2>
    ${filterForm(filters)}
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
