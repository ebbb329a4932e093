import type { RecordedEvent } from '../../event-store/types.js';
import { requestStreamId } from '../../requests/events.js';
import { findProposal, type ProposalRecord } from '../../requests/fold.js';
import { BRANCH_PREFIX, requestFilePath } from '../markers.js';
import { foldRequestStream, renderRequestFile } from '../render.js';
import type { ReconcileDeps } from './deps.js';

/** The request file as the log has it now. */
export const renderRecordedRequestFile = (stream: readonly RecordedEvent[]): string | undefined => {
  const view = foldRequestStream(stream);
  if (!view) return undefined;
  const approved = view.proposals.filter((proposal) => proposal.outcome === 'approved').at(-1);
  if (approved) {
    const then = foldRequestStream(stream, BigInt(approved.revision));
    if (then) return renderRequestFile(then, approved);
  }
  return [
    '---',
    `id: ${view.requestId}`,
    `stage: ${view.stage}`,
    '---',
    '',
    `# ${view.requestId}`,
    '',
    `**${view.requestId}** is at stage **${view.stage}**: no stage change of it has been approved yet.`,
    '',
  ].join('\n');
};

/** Marker of a restore pull request opened because the file changed on the base branch. */
export const fileChangedMarker = (requestId: string, commit: string): string =>
  `<!-- cogitave:file-changed=${requestId}:${commit} -->`;

export const fileRestoreBranch = (requestId: string, commit: string): string =>
  `${BRANCH_PREFIX}restore-${requestId}-${commit.slice(0, 12)}`;

/**
 * The proposal waiting for a decision: the only one whose file the base branch may hold besides
 * the recorded one (its merge is being decided). A request that has closed has none, even when a
 * proposal of it was never decided: it ended with the request.
 */
export const pendingProposal = (stream: readonly RecordedEvent[]): ProposalRecord | undefined => {
  const view = foldRequestStream(stream);
  return view?.pendingProposalId ? findProposal(view, view.pendingProposalId) : undefined;
};

export type BaseFileCheck =
  /** The request has no recorded file yet: nothing to hold the repository to. */
  | { readonly kind: 'unrecorded' }
  /**
   * `pending`: the file is the one the pending proposal proposes, not the recorded one (`content`,
   * which a restore would put back).
   */
  | { readonly kind: 'agrees'; readonly as: 'recorded' | 'pending'; readonly content: string }
  | {
      readonly kind: 'disagrees';
      readonly path: string;
      readonly stream: readonly RecordedEvent[];
      /** The recorded file, which a restore puts back. */
      readonly content: string;
      /** What the base branch holds; undefined when the file was deleted. */
      readonly current: string | undefined;
    };

/** The request file on the base branch, held to the log. */
export const checkBaseFile = async (
  deps: ReconcileDeps,
  requestId: string,
): Promise<BaseFileCheck> => {
  const path = requestFilePath(requestId);
  const stream = await deps.readStream(requestStreamId(requestId));
  const content = renderRecordedRequestFile(stream);
  if (content === undefined) return { kind: 'unrecorded' };
  const current = await deps.github.readBaseFile(path);
  if (current === content) return { kind: 'agrees', as: 'recorded', content };
  const pending = pendingProposal(stream);
  if (current !== undefined && pending) {
    const then = foldRequestStream(stream, BigInt(pending.revision));
    if (then && renderRequestFile(then, pending) === current)
      return { kind: 'agrees', as: 'pending', content };
  }
  return { kind: 'disagrees', path, stream, content, current };
};
