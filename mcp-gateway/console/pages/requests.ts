import { STAGES, TERMINAL_STAGES, type Stage } from '../../../lifecycle/stages.js';
import type { Evidence } from '../../../lifecycle/evidence.js';
import type { GetDodOutput } from '../../tools/get-dod.js';
import type { GetRequestOutput, RequestDocumentOutput } from '../../tools/get-request.js';
import type { ListRequestsOutput } from '../../tools/list-requests.js';
import { html, layout, time, type Html } from '../html.js';
import type { ConsoleRequest } from '../http.js';

/**
 * The requests' pages: the board by stage (filters: product, status, requester) and a
 * request's page (intake, the Definition of Done of its stage, its proposal with evidence and
 * links, the history timeline, "as of" time travel). What they show is what `list_requests`,
 * `get_request` and `get_dod` answer for the caller.
 */

export type RequestSummary = ListRequestsOutput['results'][number];

export interface BoardFilters {
  readonly product?: string | undefined;
  readonly status?: string | undefined;
  readonly requester?: string | undefined;
}

/** Links leave the console only to http(s) addresses (never `javascript:` or `data:`). */
export const externalLink = (url: string | null | undefined, text: string): Html => {
  if (url === null || url === undefined) return html`${text}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  return parsed && (parsed.protocol === 'https:' || parsed.protocol === 'http:')
    ? html`<a href="${parsed.href}" rel="noopener noreferrer">${text}</a>`
    : html`${text} <span class="muted">(${url})</span>`;
};

/** Where the board stands: after which keyset cursor, how many per page. */
export interface BoardPage {
  /** `next_cursor` of the previous page (list_requests'); undefined: the first page. */
  readonly after?: string | undefined;
  readonly limit: number;
  readonly defaultLimit: number;
}

const boardHref = (filters: BoardFilters, page: BoardPage, after: string | undefined): string => {
  const query = new URLSearchParams();
  for (const key of ['product', 'status', 'requester'] as const) {
    const value = filters[key];
    if (value !== undefined) query.set(key, value);
  }
  if (page.limit !== page.defaultLimit) query.set('limit', String(page.limit));
  if (after !== undefined) query.set('after', after);
  const text = query.toString();
  return text === '' ? '/console/' : `/console/?${text}`;
};

/** Keyset pages: plain links (no script needed), in a labelled navigation landmark. */
export const pagination = (
  label: string,
  links: readonly {
    readonly href: string | undefined;
    readonly text: string;
    readonly rel?: string;
  }[],
): Html =>
  links.every((link) => link.href === undefined)
    ? html``
    : html`<nav class="pages" aria-label="${label}">
        <ul>
          ${links.map((link) =>
            link.href === undefined
              ? html``
              : html`<li>
                  <a href="${link.href}" ${link.rel ? html` rel="${link.rel}"` : ''}
                    >${link.text}</a
                  >
                </li>`,
          )}
        </ul>
      </nav>`;

const requestHref = (id: string): string => `/console/requests/${encodeURIComponent(id)}`;

const statusOptions = ['', 'draft', 'active', 'closed'];

export const renderBoard = (
  request: ConsoleRequest,
  filters: BoardFilters,
  page: BoardPage,
  requests: readonly RequestSummary[],
  next: string | null,
): string => {
  const pages = pagination('Board pages', [
    {
      href: page.after === undefined ? undefined : boardHref(filters, page, undefined),
      text: 'First page',
    },
    {
      href: next === null ? undefined : boardHref(filters, page, next),
      text: `Next ${String(page.limit)} requests`,
      rel: 'next',
    },
  ]);
  const byStage = new Map<Stage, RequestSummary[]>();
  for (const item of requests) {
    const list = byStage.get(item.stage) ?? [];
    list.push(item);
    byStage.set(item.stage, list);
  }
  const stages = STAGES.filter(
    (stage) => byStage.has(stage) || ['proposed', 'accepted', 'in_review'].includes(stage),
  );
  const main = html`<h1>Requests</h1>
    <form
      class="filters"
      method="get"
      action="/console/"
      role="search"
      aria-label="Filter requests"
    >
      <p>
        <label for="f-product">Product</label>
        <input id="f-product" name="product" value="${filters.product ?? ''}" />
      </p>
      <p>
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          ${statusOptions.map(
            (value) =>
              html`<option
                value="${value}"
                ${filters.status === value || (value === '' && filters.status === undefined) ? html` selected` : ''}
              >
                ${value === '' ? 'any' : value}
              </option>`,
          )}
        </select>
      </p>
      <p>
        <label for="f-requester">Requester</label>
        <input id="f-requester" name="requester" value="${filters.requester ?? ''}" />
      </p>
      <p><button type="submit">Filter</button> <a href="/console/">Clear</a></p>
    </form>
    <p class="count">
      ${requests.length}
      request${requests.length === 1 ? '' : 's'}${page.after === undefined ? '' : ' on this page'}${next === null ? '' : '; more on the next page'}.
    </p>
    ${pages}
    <div class="board">
      ${stages.map((stage) => {
        const items = byStage.get(stage) ?? [];
        return html`<section class="column" aria-labelledby="stage-${stage}">
          <h2 id="stage-${stage}">
            ${stage.replace('_', ' ')} <span class="badge">${items.length}</span>
          </h2>
          ${
            items.length === 0
              ? html`<p class="muted">None.</p>`
              : html`<ul class="cards">
                  ${items.map(
                    (item) =>
                      html`<li class="card" data-request="${item.request_id}">
                        <a href="${requestHref(item.request_id)}"
                          ><span class="id">${item.request_id}</span> ${item.title}</a
                        >
                        <p class="meta">
                          ${item.product} · ${item.requester} · ${item.priority} · ${item.status}
                        </p>
                        ${item.pending_proposal ? html`<p class="pending">Proposal ${item.pending_proposal.proposal_id} → ${item.pending_proposal.to_stage}</p>` : ''}
                      </li>`,
                  )}
                </ul>`
          }
        </section>`;
      })}
    </div>
    ${pages}`;
  return layout({
    title: 'Requests',
    section: 'requests',
    who: request.identity?.actor,
    csrf: request.csrf,
    live: ['cogitave://request/'],
    main,
  });
};

type RequestDocumentView = RequestDocumentOutput;
export type GetRequestResult = GetRequestOutput;
export type DodResult = GetDodOutput;

/** How the page may decide the pending proposal. */
export type DecisionMode =
  { readonly kind: 'local'; readonly mayDecide: boolean } | { readonly kind: 'github' };

const evidenceList = (evidence: Evidence, criteria: RequestDocumentView['acceptanceCriteria']) => {
  const rows: Html[] = [];
  if (evidence.specLink)
    rows.push(
      html`<dt>Specification</dt>
        <dd>${externalLink(evidence.specLink, evidence.specLink)}</dd>`,
    );
  if (evidence.testPlan)
    rows.push(
      html`<dt>Test plan</dt>
        <dd class="text">${evidence.testPlan}</dd>`,
    );
  if (evidence.rollbackPlan)
    rows.push(
      html`<dt>Rollback plan</dt>
        <dd class="text">${evidence.rollbackPlan}</dd>`,
    );
  if (evidence.checks && evidence.checks.length > 0)
    rows.push(
      html`<dt>Checks</dt>
        <dd>
          <ul>
            ${evidence.checks.map(
              (check) =>
                html`<li>
                  ${externalLink(check.url, check.name)}: <strong>${check.conclusion}</strong>
                </li>`,
            )}
          </ul>
        </dd>`,
    );
  for (const [id, text] of Object.entries(evidence.criteria ?? {})) {
    const criterion = criteria.find((entry) => entry.id === id);
    rows.push(
      html`<dt>${id}${criterion ? html` — ${criterion.text}` : ''}</dt>
        <dd class="text">${text}</dd>`,
    );
  }
  if (evidence.links && evidence.links.length > 0)
    rows.push(
      html`<dt>Links</dt>
        <dd>
          <ul>
            ${evidence.links.map((link) => html`<li>${externalLink(link, link)}</li>`)}
          </ul>
        </dd>`,
    );
  if (evidence.verification)
    rows.push(
      html`<dt>Verification</dt>
        <dd class="text">${evidence.verification}</dd>`,
    );
  if (evidence.notes)
    rows.push(
      html`<dt>Notes</dt>
        <dd class="text">${evidence.notes}</dd>`,
    );
  return rows.length === 0
    ? html`<p class="muted">No evidence.</p>`
    : html`<dl class="evidence">${rows}</dl>`;
};

/** A maintainer's decision on the request itself: a reason for the requester, one button. */
const reasonForm = (
  request: ConsoleRequest,
  doc: RequestDocumentView,
  action: 'reject-intake' | 'withdraw',
  label: string,
  button: string,
): Html =>
  html`<form method="post" action="${requestHref(doc.requestId)}/${action}" class="decide">
    <input type="hidden" name="csrf" value="${request.csrf}" />
    <p>
      <label for="${action}-reason">${label}</label>
      <textarea id="${action}-reason" name="reason" required maxlength="2000" rows="2"></textarea>
    </p>
    <button type="submit" class="reject">${button}</button>
  </form>`;

/** A draft with no proposal waiting: a maintainer may reject the intake (as the CLI does). */
const intakeDecision = (
  request: ConsoleRequest,
  doc: RequestDocumentView,
  mode: DecisionMode,
  timeTravel: boolean,
): Html =>
  timeTravel ||
  mode.kind !== 'local' ||
  !mode.mayDecide ||
  doc.stage !== 'proposed' ||
  doc.pendingProposal !== null
    ? html``
    : reasonForm(
        request,
        doc,
        'reject-intake',
        'Reason for rejecting the intake (told to the requester)',
        'Reject intake',
      );

/** A request still open: a maintainer may withdraw it (as `cogitave requests withdraw`). */
const withdrawSection = (
  request: ConsoleRequest,
  doc: RequestDocumentView,
  mode: DecisionMode,
  timeTravel: boolean,
): Html =>
  timeTravel || mode.kind !== 'local' || !mode.mayDecide || TERMINAL_STAGES.includes(doc.stage)
    ? html``
    : html`<section aria-labelledby="withdraw">
        <h2 id="withdraw">Withdraw</h2>
        ${reasonForm(
          request,
          doc,
          'withdraw',
          'Reason for withdrawing the request (told to the requester)',
          'Withdraw request',
        )}
      </section>`;

const proposalSection = (
  request: ConsoleRequest,
  doc: RequestDocumentView,
  mode: DecisionMode,
  timeTravel: boolean,
): Html => {
  const pending = doc.pendingProposal;
  if (!pending) return html`<p>No proposal is waiting for a decision.</p>`;
  const base = `${requestHref(doc.requestId)}/proposals/${encodeURIComponent(pending.proposalId)}`;
  const decision: Html = timeTravel
    ? html`<p class="muted">Decisions are taken on the current state, not in time travel.</p>`
    : mode.kind === 'github'
      ? html`<p class="decide">
          Approval is a merge on GitHub:
          ${
            pending.pullUrl
              ? externalLink(
                  pending.pullUrl,
                  `review and merge pull request #${String(pending.pullNumber ?? '')}`,
                )
              : 'its draft pull request is not open yet'
          }.
          The console never approves in GitHub mode.
        </p>`
      : !mode.mayDecide
        ? html`<p class="muted">Deciding needs a maintainer login (the "decide" grant).</p>`
        : html`<div class="decide">
            <form method="post" action="${base}/approve">
              <input type="hidden" name="csrf" value="${request.csrf}" />
              <button type="submit" class="approve">
                Approve ${pending.fromStage} → ${pending.toStage}
              </button>
            </form>
            <form method="post" action="${base}/reject">
              <input type="hidden" name="csrf" value="${request.csrf}" />
              <p>
                <label for="reject-reason">Reason for rejecting (told to the proposer)</label>
                <textarea
                  id="reject-reason"
                  name="reason"
                  required
                  maxlength="2000"
                  rows="2"
                ></textarea>
              </p>
              <button type="submit" class="reject">Reject</button>
            </form>
          </div>`;
  return html`<article class="proposal" aria-labelledby="proposal-title">
    <h3 id="proposal-title">
      Proposal ${pending.proposalId}: ${pending.fromStage} → ${pending.toStage}
    </h3>
    <p class="meta">By ${pending.proposedBy}, ${time(pending.proposedAt)} · ${pullLink(pending)}</p>
    <p class="text">${pending.rationale}</p>
    <h4>Evidence</h4>
    ${evidenceList(pending.evidence, doc.acceptanceCriteria)} ${decision}
  </article>`;
};

type ProposalView = GetRequestResult['proposals'][number];

const pullLink = (proposal: Pick<ProposalView, 'pullUrl' | 'pullNumber'>): Html =>
  proposal.pullUrl
    ? externalLink(proposal.pullUrl, `pull request #${String(proposal.pullNumber ?? '')}`)
    : html`no pull request (local approval)`;

/** The proposals already decided, newest first: outcome, who decided, evidence, links. */
const decidedProposals = (view: GetRequestResult): Html => {
  const decided = view.proposals.filter((proposal) => proposal.outcome !== 'pending').reverse();
  if (decided.length === 0) return html``;
  return html`<h3>Decided proposals</h3>
    <ol class="decided" reversed>
      ${decided.map(
        (proposal) =>
          html`<li class="proposal ${proposal.outcome}" id="${proposal.proposalId}">
            <h4>
              ${proposal.proposalId}: ${proposal.fromStage} → ${proposal.toStage},
              <strong>${proposal.outcome}</strong>
            </h4>
            <p class="meta">
              Proposed by ${proposal.proposedBy}, ${time(proposal.proposedAt)}
              ${
                proposal.decision
                  ? html`· ${proposal.outcome} by ${proposal.decision.by} via
                    ${proposal.decision.via}, ${time(proposal.decision.at)}`
                  : ''
              }
              · ${pullLink(proposal)}
              ${proposal.decision?.mergeCommitSha ? html`· merge commit <code>${proposal.decision.mergeCommitSha.slice(0, 12)}</code>` : ''}
            </p>
            <p class="text">${proposal.rationale}</p>
            <details>
              <summary>Evidence of ${proposal.proposalId}</summary>
              ${evidenceList(proposal.evidence, view.request.acceptanceCriteria)}
            </details>
          </li>`,
      )}
    </ol>`;
};

const dodSection = (dod: DodResult | undefined, doc: RequestDocumentView): Html => {
  const stage = dod?.stages.find((entry) => entry.stage === doc.stage);
  if (!dod || !stage) return html`<p class="muted">Shown for the current state only.</p>`;
  if (stage.items.length === 0) return html`<p>Leaving ${doc.stage} needs nothing more.</p>`;
  return html`<p>${dod.all_met === true ? 'Every item is met.' : 'Some items are missing.'}</p>
    <ul class="dod">
      ${stage.items.map(
        (item) =>
          html`<li class="${item.met === true ? 'met' : 'missing'}">
            <strong>${item.met === true ? 'Met' : 'Missing'}:</strong> ${item.description}
          </li>`,
      )}
    </ul>`;
};

export const renderRequest = (
  request: ConsoleRequest,
  view: GetRequestResult,
  dod: DodResult | undefined,
  mode: DecisionMode,
  notice: string | undefined,
): string => {
  const doc = view.request;
  const href = requestHref(doc.requestId);
  const timeTravel = view.as_of !== null;
  const main = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
    <h1><span class="id">${doc.requestId}</span> ${doc.title}</h1>
    ${timeTravel ? html`<p class="asof" role="status">As of ${view.as_of}. <a href="${href}">Back to now</a></p>` : ''}
    <p class="meta">
      Stage <strong>${doc.stage}</strong> (${doc.status}) · product ${doc.product} · requester
      ${doc.requester} · priority ${doc.priority} · proposed by ${doc.proposedBy},
      ${time(doc.createdAt)}
    </p>
    ${doc.closedReason ? html`<p>Closed: ${doc.closedReason}</p>` : ''}
    <form class="asof-form" method="get" action="${href}">
      <p>
        <label for="as-of">Show as of (a log position or an ISO-8601 time)</label>
        <input
          id="as-of"
          name="as_of"
          value="${view.as_of ?? ''}"
          placeholder="2026-11-30T08:00:00Z"
        />
        <button type="submit">Travel</button>
      </p>
    </form>
    <section aria-labelledby="intake">
      <h2 id="intake">Intake</h2>
      <p class="text">${doc.problem}</p>
      <h3>Acceptance criteria</h3>
      <ol class="criteria">
        ${doc.acceptanceCriteria.map((criterion) => html`<li id="${criterion.id}"><span class="id">${criterion.id}</span> ${criterion.text}</li>`)}
      </ol>
      ${
        doc.links.length > 0
          ? html`<h3>Links</h3>
              <ul>
                ${doc.links.map((link) => html`<li>${externalLink(link.url, link.title ?? link.url)}</li>`)}
              </ul>`
          : ''
      }
      <p>
        ${doc.intakeIssue ? externalLink(doc.intakeIssue.url, `GitHub issue #${String(doc.intakeIssue.number)}`) : html`<span class="muted">No GitHub issue.</span>`}
      </p>
      ${intakeDecision(request, doc, mode, timeTravel)}
    </section>
    <section aria-labelledby="dod">
      <h2 id="dod">Definition of Done of ${doc.stage}</h2>
      ${dodSection(timeTravel ? undefined : dod, doc)}
    </section>
    <section aria-labelledby="proposals">
      <h2 id="proposals">Proposals</h2>
      ${proposalSection(request, doc, mode, timeTravel)} ${decidedProposals(view)}
      <h3>Accumulated evidence</h3>
      ${evidenceList(doc.evidence, doc.acceptanceCriteria)}
    </section>
    ${withdrawSection(request, doc, mode, timeTravel)}
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      <ol class="timeline">
        ${view.history.map(
          (entry) =>
            html`<li>
              <p>
                <strong class="type">${entry.type}</strong> by ${entry.actor}, ${time(entry.at)}
              </p>
              <p>${entry.summary}</p>
              <p class="meta">
                revision ${entry.revision} · position <code>${entry.position}</code> · hash
                <code title="${entry.hash}">${entry.hash.slice(0, 16)}</code> ·
                <a href="${href}?as_of=${encodeURIComponent(entry.position)}">as of here</a>
              </p>
            </li>`,
        )}
      </ol>
    </section>`;
  return layout({
    title: `${doc.requestId} ${doc.title}`,
    section: 'requests',
    who: request.identity?.actor,
    csrf: request.csrf,
    // Time travel shows the past: nothing live to follow.
    ...(timeTravel ? {} : { live: [doc.uri] }),
    main,
  });
};
