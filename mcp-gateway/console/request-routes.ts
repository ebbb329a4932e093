import { decideAccess } from '../../services/access/grants.js';
import { decide, type Decision } from './actions.js';
import { optional, type ConsoleContext } from './context.js';
import { pageSize, redirect, sendHtml, type ConsoleRequest } from './http.js';
import { readActionForm } from './login.js';
import {
  renderBoard,
  renderRequest,
  type BoardFilters,
  type BoardPage,
  type DodResult,
  type GetRequestResult,
  type RequestSummary,
} from './pages/requests.js';
import type { ToolReader } from './reads.js';

/** A board page shows at most this many requests (list_requests pages of 100). */
const BOARD_MAX = 1000;
const PAGE = 100;

const NOTICES: Readonly<Record<string, string>> = {
  approved: 'Approved: the request advanced.',
  rejected: 'Rejected: the proposer is told why.',
  'intake-rejected': 'Intake rejected.',
  withdrawn: 'Withdrawn: the requester is told why.',
};

/** One board page: up to `limit` requests after the keyset cursor, and the next page's. */
const loadBoard = async (
  read: ToolReader,
  request: ConsoleRequest,
  filters: BoardFilters,
  page: BoardPage,
): Promise<{ requests: RequestSummary[]; next: string | null }> => {
  const caller = request.identity?.caller;
  if (!caller) throw new Error('the board needs a login');
  const requests: RequestSummary[] = [];
  let cursor: string | null = page.after ?? null;
  do {
    const answer = (await read(
      caller,
      'list_requests',
      {
        ...(filters.product ? { product: filters.product } : {}),
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.requester ? { requester: filters.requester } : {}),
        ...(cursor === null ? {} : { cursor }),
        limit: Math.min(PAGE, page.limit - requests.length),
      },
      request.signal,
    )) as unknown as { results: RequestSummary[]; next_cursor: string | null };
    requests.push(...answer.results);
    cursor = answer.next_cursor;
  } while (cursor !== null && requests.length < page.limit);
  return { requests, next: cursor };
};

/** The board: requests filtered by product, status and requester, a page at a time. */
export const serveBoard = async (
  { read }: ConsoleContext,
  request: ConsoleRequest,
): Promise<void> => {
  const filters: BoardFilters = {
    product: optional(request.query.get('product')),
    status: optional(request.query.get('status')),
    requester: optional(request.query.get('requester')),
  };
  const page: BoardPage = {
    after: optional(request.query.get('after')),
    limit: pageSize(request.query.get('limit'), BOARD_MAX),
    defaultLimit: BOARD_MAX,
  };
  const { requests, next } = await loadBoard(read, request, filters, page);
  sendHtml(request.res, 200, renderBoard(request, filters, page, requests, next));
};

/** One request (as of a time, when asked), with its definition of done when current. */
export const serveRequestPage = async (
  { deps, read }: ConsoleContext,
  request: ConsoleRequest,
  requestId: string,
): Promise<void> => {
  const caller = request.identity?.caller;
  if (!caller) return;
  const asOf = optional(request.query.get('as_of'));
  const view = (await read(
    caller,
    'get_request',
    { request_id: requestId, ...(asOf === undefined ? {} : { as_of: asOf }) },
    request.signal,
  )) as unknown as GetRequestResult;
  const dod =
    asOf === undefined
      ? ((await read(
          caller,
          'get_dod',
          { request_id: requestId },
          request.signal,
        )) as unknown as DodResult)
      : undefined;
  const done = optional(request.query.get('done'));
  sendHtml(
    request.res,
    200,
    renderRequest(
      request,
      view,
      dod,
      deps.approval.kind === 'github'
        ? { kind: 'github' }
        : { kind: 'local', mayDecide: decideAccess(caller.grants, 'decide').allowed },
      done === undefined ? undefined : NOTICES[done],
    ),
  );
};

/** A decision posted from a request's page; back to the page, with `done`'s notice. */
export const postDecision = async (
  { deps, read }: ConsoleContext,
  request: ConsoleRequest,
  requestId: string,
  choice: (form: URLSearchParams) => Decision,
  done: string,
): Promise<void> => {
  const form = await readActionForm(deps.sessions, request);
  if (!form || !request.identity) return;
  await decide(
    { services: deps.services, read, approval: deps.approval },
    request.identity,
    requestId,
    choice(form),
    request.signal,
  );
  redirect(request.res, `/console/requests/${encodeURIComponent(requestId)}?done=${done}`);
};
