import { createBookkeepingLog, type BookkeepingLog } from '../commands/bookkeeping.js';
import { toEventsToAppend } from '../commands/event-ids.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore, RecordedEvent } from '../event-store/types.js';

/**
 * The approval mode is a fact of the deployment, kept in its log: `github` (a proposal is
 * approved by merging its pull request) or `local` (by a maintainer on the command line or the
 * console). The first `serve` records the mode its configuration implies; afterwards only
 * `cogitave approval-mode set` changes it, itself an event. A process whose own configuration
 * disagrees does not get to decide: the local approval CLI refuses on a GitHub deployment.
 */
export type ApprovalMode = 'github' | 'local';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['github', 'local'];

export const APPROVAL_MODE_STREAM = 'governance-approval-mode';
export const APPROVAL_MODE_SET = 'ApprovalModeSet';

export interface ApprovalModeSetData {
  readonly mode: ApprovalMode;
  /** null for the first record. */
  readonly previous: ApprovalMode | null;
  /** `serve` for the first record, else the maintainer who ran the command. */
  readonly setBy: string;
  readonly reason: string;
  /** owner/name in GitHub mode. */
  readonly repository: string | null;
}

export interface RecordedApprovalMode {
  readonly mode: ApprovalMode;
  readonly setBy: string;
  readonly at: string;
  readonly repository: string | null;
  /** Revision of the mode stream: the expectation of the next change. */
  readonly revision: bigint;
  /** `recorded`: from the log; `inferred`: no record, but the log shows GitHub activity. */
  readonly source: 'recorded' | 'inferred';
}

const isMode = (value: unknown): value is ApprovalMode => value === 'github' || value === 'local';

export const approvalModeOfEvent = (event: RecordedEvent): RecordedApprovalMode | undefined => {
  const data = event.data as Partial<ApprovalModeSetData>;
  if (event.type !== APPROVAL_MODE_SET || !isMode(data.mode)) return undefined;
  return {
    mode: data.mode,
    setBy: data.setBy ?? '',
    at: event.metadata.at,
    repository: typeof data.repository === 'string' ? data.repository : null,
    revision: event.revision,
    source: 'recorded',
  };
};

/** GitHub objects recorded on a request mean the deployment has run in GitHub mode. */
const GITHUB_TRACES = ['IntakeIssueOpened', 'ProposalPullRequestOpened'];

const hasGitHubTraces = async (eventStore: EventStore): Promise<boolean> => {
  const page = await eventStore.readAll({
    maxCount: 1,
    filter: { eventTypes: GITHUB_TRACES },
  });
  return page.length > 0;
};

/**
 * The deployment's mode as its log says: the newest `ApprovalModeSet`, or, for a log from
 * before modes were recorded that shows GitHub activity, `github` (inferred); else undefined.
 */
export const readApprovalMode = async (
  eventStore: EventStore,
): Promise<RecordedApprovalMode | undefined> => {
  const [newest] = await eventStore.readStream(APPROVAL_MODE_STREAM, {
    direction: 'backwards',
    maxCount: 1,
  });
  const recorded = newest ? approvalModeOfEvent(newest) : undefined;
  if (recorded) return recorded;
  if (await hasGitHubTraces(eventStore)) {
    return {
      mode: 'github',
      setBy: '',
      at: '',
      repository: null,
      revision: -1n,
      source: 'inferred',
    };
  }
  return undefined;
};

/**
 * The log the mode is recorded through: bookkeeping (`commands/bookkeeping.ts`), a fact of the
 * deployment rather than a decision on an aggregate, and it may append nothing else.
 */
export const openApprovalModeLog = (eventStore: EventStore): BookkeepingLog =>
  createBookkeepingLog(eventStore, [APPROVAL_MODE_SET]);

/**
 * Appends an `ApprovalModeSet` expecting the stream where `after` left it (`null`: no record
 * yet). A concurrent change makes this throw WrongExpectedVersion.
 */
export const appendApprovalMode = async (
  log: BookkeepingLog,
  data: ApprovalModeSetData,
  after: bigint | null,
  meta: CommandMetadata,
): Promise<void> => {
  await log.record(
    APPROVAL_MODE_STREAM,
    toEventsToAppend([{ type: APPROVAL_MODE_SET, data }], meta),
    { expectedRevision: after === null ? 'no_stream' : after },
  );
};

export { WrongExpectedVersion };

export interface ApprovalModeWatch {
  /** The mode the log records now (undefined before any record or GitHub trace). */
  current(): RecordedApprovalMode | undefined;
  close(): Promise<void>;
}

/**
 * The deployment's mode as its log says, kept current while the process runs: read once, then
 * followed on the mode stream, so a `cogitave approval-mode set` (run through the owner or on
 * a server Postgres) changes what this process tells agents without a restart. The process's
 * own configuration plays no part.
 */
export const watchApprovalMode = async (
  eventStore: EventStore,
  onError: (error: unknown) => void,
): Promise<ApprovalModeWatch> => {
  let mode = await readApprovalMode(eventStore);
  const subscription = eventStore.subscribeToAll({
    filter: { streamPrefixes: [APPROVAL_MODE_STREAM] },
  });
  const following = (async () => {
    for await (const event of subscription) {
      const recorded = approvalModeOfEvent(event);
      if (recorded && (mode?.source !== 'recorded' || recorded.revision >= mode.revision)) {
        mode = recorded;
      }
    }
  })().catch(onError);
  return {
    current: () => mode,
    close: async () => {
      await subscription.close();
      await following;
    },
  };
};
