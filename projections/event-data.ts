import type { z } from 'zod';
import type { RecordedEvent } from '../services/event-store/types.js';

/**
 * A checker of stored events' data, one zod schema per event type: the log is read by code
 * newer or older than the code that wrote it, and a malformed event must stop the projection
 * with a message naming the field, not write a half-empty row.
 *
 * Types are looked up in a Map: with `type in schemas`, a type named like an Object.prototype
 * member (`toString`, `__proto__`) found the prototype's member and failed with a TypeError
 * instead of naming the unknown type.
 */
export const eventDataParser = (
  kind: string,
  schemas: Readonly<Record<string, z.ZodType>>,
): ((event: RecordedEvent) => unknown) => {
  const schemaOf: ReadonlyMap<string, z.ZodType> = new Map(Object.entries(schemas));
  return (event) => {
    const schema = schemaOf.get(event.type);
    if (!schema) throw new Error(`${event.type} is not a ${kind} event`);
    const parsed = schema.safeParse(event.data);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`)
        .join('; ');
      throw new Error(`${event.type} has invalid data (${issues})`);
    }
    return parsed.data;
  };
};
