import type { Expr, Scalar, Value } from './ast.js';
import { invalidQuery } from './errors.js';

export type QueryParams = Readonly<Record<string, unknown>>;

const isScalar = (value: unknown): value is Scalar =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));

// Postgres text cannot hold NUL, and jsonb refuses unpaired surrogates: refuse both up front.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string can be bound as text and as jsonb. */
export const isStorableText = (value: string): boolean =>
  !value.includes('\0') && !UNPAIRED_SURROGATE.test(value);

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$|^[0-9]{1,4}$/;

/**
 * Parameters are plain JSON scalars or lists of scalars; anything else (objects, nested lists,
 * NaN) is refused up front so a value can always be bound as text or jsonb.
 */
export const checkParams = (params: QueryParams): void => {
  for (const [name, value] of Object.entries(params)) {
    if (!PARAM_NAME.test(name)) {
      throw invalidQuery(
        'parameter',
        `Parameter name ${JSON.stringify(name.slice(0, 80))} is not an identifier (letters, digits, _)`,
        { parameter: name.slice(0, 80) },
      );
    }
    const ok = isScalar(value) || (Array.isArray(value) && value.every(isScalar));
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (ok && items.some((item) => typeof item === 'string' && !isStorableText(item))) {
      throw invalidQuery(
        'parameter',
        `Parameter $${name} holds a NUL character or an unpaired surrogate, which cannot be stored or compared`,
        { parameter: name },
      );
    }
    if (!ok) {
      throw invalidQuery(
        'parameter',
        `Parameter $${name} must be a string, number, boolean, null or a list of those`,
        { parameter: name },
      );
    }
  }
};

/** The value of a literal, a $parameter or a list of those; `undefined` for anything else. */
export const constantValue = (expr: Expr, params: QueryParams): Value | undefined => {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'param': {
      if (!Object.hasOwn(params, expr.name)) {
        const known = Object.keys(params);
        throw invalidQuery(
          'parameter',
          `Parameter $${expr.name} is used but not given (at offset ${expr.at}); given: ${known.length > 0 ? known.map((k) => `$${k}`).join(', ') : 'none'}`,
          { parameter: expr.name },
        );
      }
      return params[expr.name] as Value;
    }
    case 'list': {
      const items: Scalar[] = [];
      for (const item of expr.items) {
        const value = constantValue(item, params);
        if (value === undefined || Array.isArray(value)) {
          throw invalidQuery(
            'syntax',
            `List items must be values or $parameters holding one value (at offset ${item.at})`,
          );
        }
        items.push(value as Scalar);
      }
      return items;
    }
    default:
      return undefined;
  }
};
