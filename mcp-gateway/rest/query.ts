import { InvalidArgument } from '../../services/runtime/errors.js';
import { propertiesOf, schemaTypes, type JsonSchema } from './schemas.js';

/**
 * Query parameters → tool arguments, guided by the tool's input schema: arrays as repeated
 * parameters or comma lists (`?types=doc&types=unit` or `?types=doc,unit`), numbers and
 * booleans converted, objects as JSON (`?params={"uid":"x"}`). Anything else stays a string,
 * and unknown names pass through, so the tool's own schema judges them with its messages.
 */

const NUMBER = /^-?\d+(\.\d+)?$/;

const scalar = (value: string, types: readonly string[]): unknown => {
  if (types.includes('string') || types.length === 0) return value;
  if ((types.includes('integer') || types.includes('number')) && NUMBER.test(value)) {
    return Number(value);
  }
  if (types.includes('boolean') && (value === 'true' || value === 'false')) {
    return value === 'true';
  }
  if (types.includes('null') && value === 'null') return null;
  return value;
};

const json = (name: string, value: string): unknown => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new InvalidArgument(
      `${name} must be JSON in the query string (URL-encoded), e.g. ${name}={"key":"value"}; or POST the arguments as a JSON body.`,
    );
  }
};

export const argumentsFromQuery = (
  params: URLSearchParams,
  inputSchema: JsonSchema,
): Record<string, unknown> => {
  const properties = propertiesOf(inputSchema);
  const args: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    const schema = properties[name];
    const types = schemaTypes(schema);
    if (types.includes('array')) {
      const items = schemaTypes((schema as JsonSchema).items);
      args[name] = values
        .flatMap((value) => value.split(','))
        .filter((value) => value !== '')
        .map((value) => (items.includes('object') ? json(name, value) : scalar(value, items)));
      continue;
    }
    if (values.length > 1) {
      throw new InvalidArgument(`${name} was given ${values.length} times; it takes one value.`);
    }
    const value = values[0] ?? '';
    args[name] =
      types.includes('object') && !types.includes('string')
        ? json(name, value)
        : scalar(value, types);
  }
  return args;
};
