import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * GitHub's official OpenAPI description (`@octokit/openapi`, api.github.com, OpenAPI 3.0.3) as
 * a router and validator for the double: which operation a method + path is, whether its
 * parameters and body are what GitHub accepts, whether the double's answers have GitHub's shape.
 *
 * The description is 13 MB of JSON. It is parsed once per process, on first use, and every
 * schema is converted and compiled lazily per operation, so a test file pays only for the
 * operations it calls.
 */

type Json = Record<string, unknown>;

interface Reference {
  readonly $ref: string;
}
interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly schema?: Json;
  readonly 'x-multi-segment'?: boolean;
}
interface MediaType {
  readonly schema?: Json;
}
interface RequestBody {
  readonly required?: boolean;
  readonly content: Record<string, MediaType>;
}
interface ResponseObject {
  readonly content?: Record<string, MediaType>;
}
interface Operation {
  readonly operationId: string;
  readonly externalDocs?: { readonly url?: string };
  readonly parameters?: readonly (Parameter | Reference)[];
  readonly requestBody?: RequestBody | Reference;
  readonly responses: Record<string, ResponseObject | Reference>;
}
type PathItem = Record<string, Operation | readonly (Parameter | Reference)[]>;
interface OpenApiDocument {
  readonly paths: Record<string, PathItem>;
  readonly components: {
    readonly schemas: Record<string, Json>;
    readonly parameters: Record<string, Parameter>;
    readonly requestBodies?: Record<string, RequestBody>;
    readonly responses: Record<string, ResponseObject>;
  };
}

/** One operation of the description, as the router knows it. */
export interface RouteInfo {
  readonly operationId: string;
  readonly method: string;
  /** The path template as GitHub documents it, e.g. `/repos/{owner}/{repo}/issues`. */
  readonly template: string;
}

export interface RouteMatch extends RouteInfo {
  /** Path parameters, percent-decoded, still strings. */
  readonly pathParams: Record<string, string>;
}

/** What is wrong with a request, phrased the way GitHub phrases it where we know how. */
export interface RequestProblem {
  readonly where: 'path' | 'query' | 'body';
  readonly message: string;
}

export interface CheckedRequest {
  /** Path and query parameters, coerced to their schema types, with schema defaults applied. */
  readonly params: Record<string, unknown>;
  readonly problems: readonly RequestProblem[];
}

interface CompiledRoute extends RouteInfo {
  readonly regex: RegExp;
  readonly names: readonly string[];
  readonly literalSegments: number;
  readonly multiSegment: number;
  readonly operation: Operation;
  readonly parameters: readonly Parameter[];
}

interface RequestValidator {
  readonly params: ValidateFunction;
  readonly pathNames: ReadonlySet<string>;
  readonly queryNames: ReadonlySet<string>;
  readonly arrayQueryNames: ReadonlySet<string>;
  readonly body: ValidateFunction | undefined;
  readonly bodyRequired: boolean;
  /** Top-level properties the body schema declares, when it is a plain object schema. */
  readonly bodyProperties: ReadonlySet<string> | undefined;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;
const SCHEMA_BASE = 'https://openapi.github-double.test/components/schemas/';
// Keys of OpenAPI 3.0 that JSON Schema does not know (or that only annotate); dropping them
// keeps the compiled validators small.
const DROPPED_KEYS = new Set([
  'nullable',
  'example',
  'examples',
  'description',
  'title',
  'discriminator',
  'readOnly',
  'writeOnly',
  'deprecated',
  'xml',
  'externalDocs',
]);

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the
// module object.
const addFormats = addFormatsModule.default;

/** The parsed description, its routes and its validators. Built once per process. */
export class OpenApi {
  private readonly routes: readonly CompiledRoute[];
  private readonly byOperationId = new Map<string, CompiledRoute>();
  private readonly converted = new Set<string>();
  private readonly requestValidators = new Map<string, RequestValidator>();
  private readonly responseValidators = new Map<string, ValidateFunction | null>();
  // Path and query values arrive as strings: that instance coerces them and applies defaults.
  // Bodies and responses are JSON and are checked as they are.
  private readonly paramsAjv: Ajv;
  private readonly jsonAjv: Ajv;

  constructor(private readonly document: OpenApiDocument) {
    const options = {
      strict: false,
      allErrors: true,
      logger: false,
      unicodeRegExp: false,
    } as const;
    this.paramsAjv = new Ajv({ ...options, coerceTypes: 'array', useDefaults: true });
    this.jsonAjv = new Ajv(options);
    for (const ajv of [this.paramsAjv, this.jsonAjv]) {
      addFormats(ajv);
      // Formats GitHub uses that ajv-formats does not define.
      ajv.addFormat('repo.nwo', /^[^/\s]+\/[^/\s]+$/);
      ajv.addFormat('timestamp', true);
    }
    this.routes = this.compileRoutes();
    for (const route of this.routes) this.byOperationId.set(route.operationId, route);
  }

  /** The operation a method + raw (still percent-encoded) path addresses, if any. */
  match(method: string, rawPath: string): RouteMatch | undefined {
    const upper = method.toUpperCase();
    for (const route of this.routes) {
      if (route.method !== upper) continue;
      const found = route.regex.exec(rawPath);
      if (!found) continue;
      const pathParams: Record<string, string> = {};
      let decodable = true;
      for (const [index, name] of route.names.entries()) {
        try {
          pathParams[name] = decodeURIComponent(found[index + 1] ?? '');
        } catch {
          decodable = false;
        }
      }
      if (!decodable) continue;
      return {
        operationId: route.operationId,
        method: route.method,
        template: route.template,
        pathParams,
      };
    }
    return undefined;
  }

  /** Every operation of the description. */
  operations(): RouteInfo[] {
    return this.routes.map(({ operationId, method, template }) => ({
      operationId,
      method,
      template,
    }));
  }

  /** The operation with this id (e.g. `issues/create`), if the description has it. */
  operation(operationId: string): RouteInfo | undefined {
    const route = this.byOperationId.get(operationId);
    return route && { operationId, method: route.method, template: route.template };
  }

  /** The operation's documentation page, as GitHub puts it in `documentation_url`. */
  docsUrl(operationId: string | undefined): string {
    const route = operationId === undefined ? undefined : this.byOperationId.get(operationId);
    return route?.operation.externalDocs?.url ?? 'https://docs.github.com/rest';
  }

  /**
   * Checks path and query parameters (types, enums, required) and the JSON body against the
   * operation. `rejectUnknown` also refuses query parameters and top-level body properties the
   * operation does not declare: GitHub ignores them silently, which hides typos in our code.
   */
  checkRequest(
    match: RouteMatch,
    query: URLSearchParams,
    body: unknown,
    rejectUnknown: boolean,
  ): CheckedRequest {
    const validator = this.requestValidator(match.operationId);
    const problems: RequestProblem[] = [];
    const params: Record<string, unknown> = { ...match.pathParams };
    for (const key of new Set(query.keys())) {
      if (!validator.queryNames.has(key)) {
        if (rejectUnknown) {
          problems.push({
            where: 'query',
            message: `Unknown query parameter "${key}" for ${match.operationId}.`,
          });
        }
        continue;
      }
      params[key] = validator.arrayQueryNames.has(key) ? query.getAll(key) : query.get(key);
    }
    if (!validator.params(params)) {
      for (const error of validator.params.errors ?? []) {
        const name = parameterName(error);
        problems.push({
          where: name !== undefined && validator.pathNames.has(name) ? 'path' : 'query',
          message: describeError(error, 'parameter'),
        });
      }
    }
    if (body === undefined) {
      if (validator.bodyRequired) {
        problems.push({ where: 'body', message: 'Invalid request.\n\nA JSON body is required.' });
      }
    } else if (!validator.body) {
      problems.push({ where: 'body', message: `${match.operationId} takes no request body.` });
    } else {
      if (!validator.body(body)) {
        const reasons = (validator.body.errors ?? []).map((error) => describeError(error, 'body'));
        problems.push({ where: 'body', message: `Invalid request.\n\n${reasons.join('\n')}` });
      }
      if (rejectUnknown && validator.bodyProperties && isPlainObject(body)) {
        for (const key of Object.keys(body)) {
          if (!validator.bodyProperties.has(key)) {
            problems.push({
              where: 'body',
              message: `Invalid request.\n\n"${key}" is not a property of ${match.operationId}'s body.`,
            });
          }
        }
      }
    }
    return { params, problems };
  }

  /**
   * Errors of a response body against the schema the description gives for this operation and
   * status (JSON media types only). An empty list when it conforms or nothing is documented.
   */
  checkResponse(operationId: string, status: number, body: unknown): string[] {
    const validate = this.responseValidator(operationId, status);
    if (!validate || validate(body)) return [];
    return (validate.errors ?? []).map((error) => describeError(error, 'response'));
  }

  private compileRoutes(): CompiledRoute[] {
    const routes: CompiledRoute[] = [];
    for (const [template, item] of Object.entries(this.document.paths)) {
      const shared = (item.parameters ?? []) as readonly (Parameter | Reference)[];
      for (const method of METHODS) {
        const operation = item[method] as Operation | undefined;
        if (!operation) continue;
        const parameters = [...shared, ...(operation.parameters ?? [])].map((p) =>
          this.resolveParameter(p),
        );
        const names: string[] = [];
        let multiSegment = 0;
        const segments = template.split('/');
        const pattern = segments
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
              if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
              names.push(name);
              const multi = parameters.some(
                (p) => p.in === 'path' && p.name === name && p['x-multi-segment'] === true,
              );
              if (multi) multiSegment += 1;
              // A multi-segment parameter may be empty: `contents/` lists the root.
              return multi ? '(.*)' : '([^/]+)';
            }),
          )
          .join('/');
        routes.push({
          operationId: operation.operationId,
          method: method.toUpperCase(),
          template,
          // Octokit drops a trailing slash, so `contents/{path}` with an empty path arrives as
          // `…/contents`: a trailing multi-segment parameter takes its slash along.
          regex: new RegExp(`^${pattern.replace(/\/\(\.\*\)$/, '(?:/(.*))?')}$`),
          names,
          literalSegments: segments.filter((s) => s !== '' && !s.includes('{')).length,
          multiSegment,
          operation,
          parameters,
        });
      }
    }
    // The most specific template wins: `/issues/comments` before `/issues/{issue_number}`, and
    // a multi-segment parameter only takes what no single-segment template claims.
    return routes.sort(
      (a, b) => a.multiSegment - b.multiSegment || b.literalSegments - a.literalSegments,
    );
  }

  private resolveParameter(parameter: Parameter | Reference): Parameter {
    if (!('$ref' in parameter)) return parameter;
    const resolved = this.document.components.parameters[lastSegment(parameter.$ref)];
    if (!resolved) throw new Error(`Unresolvable parameter ${parameter.$ref}`);
    return resolved;
  }

  private requestValidator(operationId: string): RequestValidator {
    const cached = this.requestValidators.get(operationId);
    if (cached) return cached;
    const route = this.byOperationId.get(operationId);
    if (!route) throw new Error(`Unknown operation ${operationId}`);
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const pathNames = new Set<string>();
    const queryNames = new Set<string>();
    const arrayQueryNames = new Set<string>();
    for (const parameter of route.parameters) {
      if (parameter.in !== 'path' && parameter.in !== 'query') continue;
      const schema = this.convert(parameter.schema ?? {});
      properties[parameter.name] = schema;
      if (parameter.required === true || parameter.in === 'path') required.push(parameter.name);
      if (parameter.in === 'path') pathNames.add(parameter.name);
      else {
        queryNames.add(parameter.name);
        if (parameter.schema?.type === 'array') arrayQueryNames.add(parameter.name);
      }
    }
    const params = this.paramsAjv.compile({ type: 'object', properties, required });
    const requestBody = this.resolveRequestBody(route.operation.requestBody);
    const bodySchema = requestBody?.content['application/json']?.schema;
    const bodyProperties =
      bodySchema && bodySchema.type === 'object' && isPlainObject(bodySchema.properties)
        ? new Set(Object.keys(bodySchema.properties))
        : undefined;
    const validator: RequestValidator = {
      params,
      pathNames,
      queryNames,
      arrayQueryNames,
      body: bodySchema ? this.jsonAjv.compile(this.convert(bodySchema)) : undefined,
      bodyRequired: requestBody?.required === true,
      bodyProperties,
    };
    this.requestValidators.set(operationId, validator);
    return validator;
  }

  private resolveRequestBody(body: RequestBody | Reference | undefined): RequestBody | undefined {
    if (!body || !('$ref' in body)) return body;
    return this.document.components.requestBodies?.[lastSegment(body.$ref)];
  }

  private responseValidator(operationId: string, status: number): ValidateFunction | null {
    const key = `${operationId} ${status}`;
    const cached = this.responseValidators.get(key);
    if (cached !== undefined) return cached;
    const route = this.byOperationId.get(operationId);
    let response = route?.operation.responses[String(status)];
    if (response && '$ref' in response) {
      response = this.document.components.responses[lastSegment(response.$ref)];
    }
    const content = response?.content ?? {};
    const schema = content['application/json']?.schema ?? content['application/scim+json']?.schema;
    const validate = schema ? this.jsonAjv.compile(this.convert(schema)) : null;
    this.responseValidators.set(key, validate);
    return validate;
  }

  /**
   * OpenAPI 3.0 schema → JSON Schema (draft-07) for ajv:
   * - `nullable: true` becomes a union with `null`;
   * - `oneOf` becomes `anyOf`: GitHub's description has many overlapping branches (a `null`
   *   matches every nullable branch), which `oneOf` would refuse though GitHub accepts them;
   * - `$ref: #/components/schemas/X` points to X registered once in both ajv instances, so
   *   recursive schemas stay finite and shared schemas compile once.
   */
  private convert(schema: Json): Json {
    if (typeof schema.$ref === 'string') return { $ref: this.schemaRef(schema.$ref) };
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED_KEYS.has(key) || key.startsWith('x-')) continue;
      if (key === 'properties' && isPlainObject(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, this.convert(sub as Json)]),
        );
      } else if ((key === 'items' || key === 'not') && isPlainObject(value)) {
        out[key] = this.convert(value);
      } else if (key === 'additionalProperties' && isPlainObject(value)) {
        out[key] = this.convert(value);
      } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
        out[key] = (value as Json[]).map((sub) => this.convert(sub));
      } else {
        out[key] = value;
      }
    }
    if (out.oneOf !== undefined) {
      const branches = out.oneOf;
      delete out.oneOf;
      if (out.anyOf === undefined) out.anyOf = branches;
      else out.allOf = [...((out.allOf as Json[] | undefined) ?? []), { anyOf: branches }];
    }
    if (schema.nullable !== true) return out;
    if (typeof out.type === 'string' && out.enum === undefined) {
      return { ...out, type: [out.type, 'null'] };
    }
    return { anyOf: [out, { type: 'null' }] };
  }

  private schemaRef(ref: string): string {
    const name = lastSegment(ref);
    const id = SCHEMA_BASE + encodeURIComponent(name);
    if (!this.converted.has(name)) {
      this.converted.add(name);
      const source = this.document.components.schemas[name];
      if (!source) throw new Error(`Unresolvable schema ${ref}`);
      const converted = this.convert(source);
      for (const ajv of [this.paramsAjv, this.jsonAjv]) ajv.addSchema(converted, id);
    }
    return id;
  }
}

const isPlainObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const lastSegment = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

const parameterName = (error: ErrorObject): string | undefined => {
  if (error.keyword === 'required') {
    return (error.params as { missingProperty?: string }).missingProperty;
  }
  return error.instancePath.split('/')[1];
};

/** An ajv error in GitHub's wording where GitHub has one (`"title" wasn't supplied.`). */
const describeError = (error: ErrorObject, what: 'parameter' | 'body' | 'response'): string => {
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty?: string }).missingProperty ?? '?';
    const at = error.instancePath === '' ? '' : ` (at ${error.instancePath})`;
    return `"${missing}" wasn't supplied${at}.`;
  }
  const at = error.instancePath === '' ? what : `${what} ${error.instancePath}`;
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return `For ${at}: must be one of ${JSON.stringify(allowed)}.`;
  }
  return `For ${at}: ${error.message ?? error.keyword}.`;
};

let loading: Promise<OpenApi> | undefined;

/**
 * The description, parsed once per process. A module-level cache on purpose: it is immutable
 * reference data, and re-parsing 13 MB per double (or per test) would dominate the suite.
 */
export const loadOpenApi = (): Promise<OpenApi> => {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
    return new OpenApi(JSON.parse(await readFile(file, 'utf8')) as OpenApiDocument);
  })();
  return loading;
};
