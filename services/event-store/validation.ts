import { z } from 'zod';
import { InvalidArgument } from '../runtime/errors.js';
import type {
  AppendOptions,
  EventFilter,
  EventToAppend,
  ReadAllOptions,
  ReadStreamOptions,
} from './types.js';
import { plainCanonicalJson } from './canonical-json.js';
import { eventContent } from './hash-chain.js';
import { isPosition } from './position.js';

/** Longest batch one append may carry: larger writes belong in several appends. */
export const MAX_EVENTS_PER_APPEND = 1000;
export const MAX_READ_COUNT = 10_000;

export const streamIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(
    /^[^\s$\p{Cc}][^\s\p{Cc}]*$/u,
    'must have no spaces or control characters and not start with "$" (reserved)',
  );

const eventTypeSchema = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/,
    'must start with a letter and use letters, digits, _ . : - (at most 100)',
  );

const metadataSchema = z
  .object({
    actor: z.string().min(1),
    correlationId: z.string().min(1),
    causationId: z.string().min(1),
    at: z.iso.datetime({ offset: true }),
  })
  .loose()
  // The chain fields live beside metadata on a recorded event; EventStoreDB stores them inside.
  .refine((meta) => !('prevHash' in meta) && !('hash' in meta), {
    error: 'must not set prevHash or hash (the store computes the hash chain)',
  });

const eventSchema = z.object({
  id: z.uuid(),
  type: eventTypeSchema,
  data: z.unknown(),
  metadata: metadataSchema,
});

const expectedRevisionSchema = z.union([
  z.enum(['any', 'no_stream', 'stream_exists']),
  z.bigint().nonnegative(),
]);

const describe = (error: z.ZodError, what: string): string =>
  `${what}: ${error.issues.map((i) => `${i.path.length ? i.path.join('.') + ' ' : ''}${i.message}`).join('; ')}`;

/** An event as an append stores it: plain JSON, and the canonical content its hash covers. */
export interface ValidatedEvent extends EventToAppend {
  /** `eventContent(streamId, event)`: RFC 8785 JSON of `{ id, streamId, type, data, metadata }`. */
  readonly content: string;
}

// z.uuid()'s own pattern: a quick check may only pass what the schema passes.
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;
const atSchema = metadataSchema.shape.at;

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/**
 * True when `eventSchema` would accept the event, checked without zod's per-event cost (an
 * append of 1,000 events pays it 1,000 times). False means "ask the schema", which names the
 * problem; `checkedAt` holds a timestamp already accepted in this append (one command's events
 * share theirs).
 */
const quickValid = (event: unknown, checkedAt: Set<string>): boolean => {
  // Callers outside the type system (tools, tests) may pass anything.
  if (typeof event !== 'object' || event === null) return false;
  const { id, type, metadata } = event as Record<string, unknown>;
  if (typeof id !== 'string' || !UUID.test(id)) return false;
  if (typeof type !== 'string' || !EVENT_TYPE.test(type)) return false;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return false;
  if ('prevHash' in metadata || 'hash' in metadata) return false;
  const { actor, correlationId, causationId, at } = metadata as Record<string, unknown>;
  if (!nonEmpty(actor) || !nonEmpty(correlationId) || !nonEmpty(causationId)) return false;
  if (typeof at !== 'string') return false;
  if (checkedAt.has(at)) return true;
  if (!atSchema.safeParse(at).success) return false;
  checkedAt.add(at);
  return true;
};

/**
 * Validates and normalises an append: returns events whose data and metadata are plain JSON
 * (as they will be read back), each with the canonical content its hash covers, so the hash
 * computed now is the hash verify recomputes later. Plain data takes one pass (the canonical
 * writer, which refuses whatever is not plain JSON); anything else is checked the long way,
 * which names the value a store cannot hold.
 */
export const validateAppend = (
  streamId: string,
  events: readonly EventToAppend[],
  options: AppendOptions,
): ValidatedEvent[] => {
  const stream = streamIdSchema.safeParse(streamId);
  if (!stream.success) throw new InvalidArgument(describe(stream.error, 'stream id'), { streamId });
  const expected = expectedRevisionSchema.safeParse(options.expectedRevision);
  if (!expected.success) {
    throw new InvalidArgument(
      'expectedRevision must be "any", "no_stream", "stream_exists" or a non-negative bigint revision',
    );
  }
  if (events.length === 0) throw new InvalidArgument('append needs at least one event');
  if (events.length > MAX_EVENTS_PER_APPEND) {
    throw new InvalidArgument(
      `append takes at most ${MAX_EVENTS_PER_APPEND} events (got ${events.length})`,
    );
  }
  const seen = new Set<string>();
  const checkedAt = new Set<string>();
  return events.map((event, index) => {
    if (!quickValid(event, checkedAt)) {
      const parsed = eventSchema.safeParse(event);
      if (!parsed.success)
        throw new InvalidArgument(describe(parsed.error, `event ${index}`), { streamId });
    }
    const id = event.id.toLowerCase();
    if (seen.has(id))
      throw new InvalidArgument(`event ${index}: id ${event.id} appears twice in one append`);
    seen.add(id);
    const data = event.data ?? null;
    const content = plainCanonicalJson({
      id,
      streamId,
      type: event.type,
      data,
      metadata: event.metadata,
    });
    // JSON writes NUL as \u0000 (a literal backslash before "u0000" matches too: then the long
    // way finds nothing wrong).
    if (content !== undefined && !content.includes('\\u0000')) {
      return { id, type: event.type, data, metadata: event.metadata, content };
    }
    const plain = toPlainJson({ data, metadata: event.metadata }, `event ${index}`) as {
      data: unknown;
      metadata: EventToAppend['metadata'];
    };
    const normalised = { id, type: event.type, data: plain.data, metadata: plain.metadata };
    return { ...normalised, content: eventContent(streamId, normalised) };
  });
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The value as it will be read back (JSON round trip), refusing what JSON or Postgres jsonb
 * cannot hold faithfully: BigInt, NUL characters, lone surrogates.
 */
const toPlainJson = (value: unknown, where: string): unknown => {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgument(
      `${where}: data and metadata must be JSON (${(error as Error).message})`,
    );
  }
  const plain = JSON.parse(text) as unknown;
  const check = (node: unknown, path: string): void => {
    if (typeof node === 'string') {
      if (node.includes('\u0000'))
        throw new InvalidArgument(`${where}: ${path} must not contain NUL characters`);
      if (LONE_SURROGATE.test(node))
        throw new InvalidArgument(`${where}: ${path} holds a lone surrogate (not valid Unicode)`);
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => {
        check(item, `${path}[${i}]`);
      });
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        check(key, `${path} key "${key}"`);
        check(item, `${path}.${key}`);
      }
    }
  };
  check(plain, 'event');
  return plain;
};

const countSchema = z.number().int().min(1).max(MAX_READ_COUNT);

export const validateReadStream = (streamId: string, options: ReadStreamOptions): void => {
  const stream = streamIdSchema.safeParse(streamId);
  if (!stream.success) throw new InvalidArgument(describe(stream.error, 'stream id'), { streamId });
  if (options.maxCount !== undefined && !countSchema.safeParse(options.maxCount).success) {
    throw new InvalidArgument(`maxCount must be an integer from 1 to ${MAX_READ_COUNT}`);
  }
  if (
    options.fromRevision !== undefined &&
    (typeof options.fromRevision !== 'bigint' || options.fromRevision < 0n)
  ) {
    throw new InvalidArgument('fromRevision must be a non-negative bigint');
  }
};

/** Most partitions a filter may split the log into: the Postgres store has 64 stream buckets. */
export const MAX_PARTITIONS = 64;

/** Checks what the adapters interpret themselves (a partition's numbers go into SQL). */
export const validateFilter = (filter: EventFilter | undefined): void => {
  const partition = filter?.partition;
  if (partition === undefined) return;
  const { count, index } = partition;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_PARTITIONS) {
    throw new InvalidArgument(
      `filter.partition.count must be an integer from 1 to ${MAX_PARTITIONS} (got ${String(count)})`,
    );
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
    throw new InvalidArgument(
      `filter.partition.index must be an integer from 0 to ${count - 1} (got ${String(index)})`,
    );
  }
};

export const validateReadAll = (options: ReadAllOptions): void => {
  validateFilter(options.filter);
  if (options.maxCount !== undefined && !countSchema.safeParse(options.maxCount).success) {
    throw new InvalidArgument(`maxCount must be an integer from 1 to ${MAX_READ_COUNT}`);
  }
  if (options.fromPosition !== undefined && !isPosition(options.fromPosition)) {
    throw new InvalidArgument('fromPosition is not a position returned by the event store');
  }
};
