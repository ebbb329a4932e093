/**
 * Decodes and checks requests against the API: the `oneof`s the server requires, the
 * combinations of read options it accepts (its `Streams.Read` switch), the metadata every
 * proposed event must carry. A request that breaks a rule is a `Problem`: the server answers
 * it as EventStoreDB does (status INVALID_ARGUMENT) and records a violation.
 */
import type * as StreamsPb from '@eventstore/db-client/generated/streams_pb.js';
import { parseUuid, streamNameOf } from './codec.js';
import type { Direction, ExpectedState, ProposedEvent, ReadFrom, RecordFilter } from './log.js';
import {
  streams,
  type AppendProposedMessage,
  type AppendReq,
  type BatchAppendReq,
  type BatchProposedMessage,
  type DeleteReq,
  type ReadReq,
  type TombstoneReq,
} from './proto.js';

const { Options } = streams.ReadReq;

export class Problem extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The server's default window of a filtered read (its ReadBatchSize). */
export const DEFAULT_MAX_SEARCH_WINDOW = 32;

const CONTENT_TYPES = new Set(['application/json', 'application/octet-stream']);

export type ReadTarget =
  | { readonly kind: 'stream'; readonly streamId: string; readonly from: ReadFrom }
  | { readonly kind: 'all'; readonly from: ReadFrom; readonly invalidPosition: boolean };

export interface ParsedRead {
  readonly target: ReadTarget;
  readonly direction: Direction;
  /** Events to read; null for a subscription. */
  readonly count: bigint | null;
  readonly filter?: {
    readonly filter: RecordFilter;
    /** Checkpoint every `window × multiplier` events considered (subscriptions). */
    readonly checkpointEvery: number;
  };
  readonly resolveLinks: boolean;
  readonly uuidAsString: boolean;
}

const required = <T>(value: T | undefined | null, what: string): T => {
  if (value === undefined || value === null) throw new Problem(`${what} is required`);
  return value;
};

const streamOf = (identifier: Parameters<typeof streamNameOf>[0], what: string): string => {
  const name = streamNameOf(identifier);
  if (!name) throw new Problem(`${what}: stream_identifier with a stream name is required`);
  return name;
};

const expectedFrom = (kase: number, revision: () => string, what: string): ExpectedState => {
  // Every options message numbers the oneof the same way: 2 revision, 3 no_stream, 4 any, 5 stream_exists.
  switch (kase) {
    case 2:
      return { kind: 'revision', revision: BigInt(revision()) };
    case 3:
      return { kind: 'no_stream' };
    case 4:
      return { kind: 'any' };
    case 5:
      return { kind: 'stream_exists' };
    default:
      throw new Problem(
        `${what}: the expected stream revision (revision, no_stream, any, stream_exists) is not set`,
      );
  }
};

export const parseRead = (request: ReadReq): ParsedRead => {
  const options = required(request.getOptions(), 'ReadReq.options');
  // The server refuses a read without uuid_option (RpcExceptions.RequiredArgument).
  const uuidOption = required(options.getUuidOption(), 'ReadReq.options.uuid_option');
  const { ReadDirection, StreamOptionCase, CountOptionCase, FilterOptionCase } = Options;
  const direction = options.getReadDirection();
  // An enum field can carry any number on the wire.
  if (!Object.values(ReadDirection).includes(direction)) {
    throw new Problem(
      `read_direction ${String(direction)} is neither Forwards (0) nor Backwards (1)`,
    );
  }
  const streamCase = options.getStreamOptionCase();
  const countCase = options.getCountOptionCase();
  const filterCase = options.getFilterOptionCase();
  if (streamCase === StreamOptionCase.STREAM_OPTION_NOT_SET) {
    throw new Problem('ReadReq.options: neither stream nor all is set');
  }
  if (countCase === CountOptionCase.COUNT_OPTION_NOT_SET) {
    throw new Problem('ReadReq.options: neither count nor subscription is set');
  }
  if (filterCase === FilterOptionCase.FILTER_OPTION_NOT_SET) {
    throw new Problem('ReadReq.options: neither filter nor no_filter is set');
  }
  const all = streamCase === StreamOptionCase.ALL;
  const subscription = countCase === CountOptionCase.SUBSCRIPTION;
  const filtered = filterCase === FilterOptionCase.FILTER;
  const backwards = direction === ReadDirection.BACKWARDS;
  // The combinations the server's Streams.Read accepts; any other is "invalid".
  if ((!all && filtered) || (subscription && backwards)) {
    throw new Problem(
      `the combination (${all ? 'All' : 'Stream'}, ${subscription ? 'Subscription' : 'Count'}, ${backwards ? 'Backwards' : 'Forwards'}, ${filtered ? 'Filter' : 'NoFilter'}) is invalid`,
    );
  }
  const parsed = {
    target: all ? allTarget(options.getAll()) : streamTarget(options.getStream()),
    direction: backwards ? ('backwards' as const) : ('forwards' as const),
    count: subscription ? null : BigInt(options.getCount()),
    resolveLinks: options.getResolveLinks(),
    uuidAsString: uuidOption.getContentCase() === Options.UUIDOption.ContentCase.STRING,
  };
  return filtered ? { ...parsed, filter: readFilter(options.getFilter(), subscription) } : parsed;
};

const allTarget = (allOptions: StreamsPb.ReadReq.Options.AllOptions | undefined): ReadTarget => {
  const { AllOptionCase } = Options.AllOptions;
  const kase = required(allOptions, 'ReadReq.options.all').getAllOptionCase();
  if (kase === AllOptionCase.ALL_OPTION_NOT_SET) {
    throw new Problem('ReadReq.options.all: neither position, start nor end is set');
  }
  if (kase !== AllOptionCase.POSITION) {
    return {
      kind: 'all',
      from: kase === AllOptionCase.START ? 'start' : 'end',
      invalidPosition: false,
    };
  }
  const position = allOptions!.getPosition()!;
  const commit = BigInt(position.getCommitPosition());
  const prepare = BigInt(position.getPreparePosition());
  // Every record here has commit = prepare; another pair names no record.
  return { kind: 'all', from: commit, invalidPosition: commit !== prepare || commit < 0n };
};

const streamTarget = (
  streamOptions: StreamsPb.ReadReq.Options.StreamOptions | undefined,
): ReadTarget => {
  const { RevisionOptionCase } = Options.StreamOptions;
  const checked = required(streamOptions, 'ReadReq.options.stream');
  const streamId = streamOf(checked.getStreamIdentifier(), 'ReadReq.options.stream');
  const kase = checked.getRevisionOptionCase();
  if (kase === RevisionOptionCase.REVISION_OPTION_NOT_SET) {
    throw new Problem('ReadReq.options.stream: neither revision, start nor end is set');
  }
  const from: ReadFrom =
    kase === RevisionOptionCase.REVISION
      ? BigInt(checked.getRevision())
      : kase === RevisionOptionCase.START
        ? 'start'
        : 'end';
  return { kind: 'stream', streamId, from };
};

const readFilter = (
  filterOptions: StreamsPb.ReadReq.Options.FilterOptions | undefined,
  subscription: boolean,
): NonNullable<ParsedRead['filter']> => {
  const { FilterCase, WindowCase } = Options.FilterOptions;
  const checked = required(filterOptions, 'ReadReq.options.filter');
  const on = checked.getFilterCase();
  if (on === FilterCase.FILTER_NOT_SET) {
    throw new Problem('ReadReq.options.filter: neither stream_identifier nor event_type is set');
  }
  const byStream = on === FilterCase.STREAM_IDENTIFIER;
  const expression = (byStream ? checked.getStreamIdentifier() : checked.getEventType())!;
  const regex = expression.getRegex();
  const prefixes = expression.getPrefixList();
  if (!regex && prefixes.length === 0) {
    throw new Problem('ReadReq.options.filter: the expression has neither a regex nor prefixes');
  }
  const windowCase = checked.getWindowCase();
  if (windowCase === WindowCase.WINDOW_NOT_SET) {
    throw new Problem('ReadReq.options.filter: neither max nor count is set');
  }
  const window = windowCase === WindowCase.MAX ? checked.getMax() : DEFAULT_MAX_SEARCH_WINDOW;
  if (window <= 0) throw new Problem('ReadReq.options.filter.max must be greater than 0');
  const multiplier = checked.getCheckpointintervalmultiplier();
  // The server refuses a zero multiplier (ArgumentOutOfRangeException in AllSubscriptionFiltered).
  if (subscription && multiplier <= 0) {
    throw new Problem('ReadReq.options.filter.checkpointIntervalMultiplier must be greater than 0');
  }
  return {
    filter: {
      on: byStream ? 'stream' : 'type',
      ...(regex ? { regex: new RegExp(regex) } : { prefixes }),
    },
    checkpointEvery: window * Math.max(multiplier, 1),
  };
};

/** A proposed event; the server requires the `type` and `content-type` metadata entries. */
export const parseProposed = (
  message: AppendProposedMessage | BatchProposedMessage,
  what: string,
): ProposedEvent => {
  const id = parseUuid(message.getId());
  if (!id) throw new Problem(`${what}: id is not a UUID`);
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  if (type === undefined)
    throw new Problem(`${what}: Required Metadata Property 'type' is missing`);
  if (contentType === undefined) {
    throw new Problem(`${what}: Required Metadata Property 'content-type' is missing`);
  }
  if (!CONTENT_TYPES.has(contentType)) {
    throw new Problem(
      `${what}: content-type "${contentType}" is neither application/json nor application/octet-stream`,
    );
  }
  return {
    id,
    type,
    contentType,
    data: message.getData_asU8(),
    metadata: message.getCustomMetadata_asU8(),
  };
};

export interface AppendTarget {
  readonly streamId: string;
  readonly expected: ExpectedState;
}

/** The first message of an `Append` call must carry the options. */
export const parseAppendOptions = (request: AppendReq): AppendTarget => {
  if (request.getContentCase() !== streams.AppendReq.ContentCase.OPTIONS) {
    throw new Problem('Append: the first message must carry the options, not a proposed message');
  }
  const options = request.getOptions()!;
  return {
    streamId: streamOf(options.getStreamIdentifier(), 'AppendReq.options'),
    expected: expectedFrom(
      options.getExpectedStreamRevisionCase(),
      () => options.getRevision(),
      'AppendReq.options',
    ),
  };
};

export interface BatchTarget extends AppendTarget {
  /** When the server gives up on the append (the options' deadline). */
  readonly deadline: number | null;
}

export const parseBatchOptions = (request: BatchAppendReq): BatchTarget => {
  const options = required(
    request.getOptions(),
    'BatchAppendReq.options (first message of a correlation id)',
  );
  const deadline = options.getDeadline();
  return {
    streamId: streamOf(options.getStreamIdentifier(), 'BatchAppendReq.options'),
    expected: expectedFrom(
      options.getExpectedStreamPositionCase(),
      () => options.getStreamPosition(),
      'BatchAppendReq.options',
    ),
    deadline: deadline ? deadline.toDate().getTime() : null,
  };
};

export const parseDeletion = (request: DeleteReq | TombstoneReq, what: string): AppendTarget => {
  const options = required(request.getOptions(), `${what}.options`);
  return {
    streamId: streamOf(options.getStreamIdentifier(), `${what}.options`),
    expected: expectedFrom(
      options.getExpectedStreamRevisionCase(),
      () => options.getRevision(),
      `${what}.options`,
    ),
  };
};
