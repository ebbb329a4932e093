import { CogitaveError } from '../runtime/errors.js';

/**
 * The one place grants are interpreted. A caller's grants decide, once per call, whether it
 * may use a kind of access at all (`decideAccess`), and give the `ReadScope` every read
 * service takes as a required argument: what the scope excludes is never returned, counted or
 * notified, and answers exactly as if it did not exist.
 *
 * The rule behind "looks like absent": a refusal may depend on the grants and the call's own
 * arguments (a type or product the call names), never on stored data. Whatever depends on
 * data outside the scope is answered as absent (NOT_FOUND, an empty page, no notification).
 */

/** What a caller may do; bearer tokens map to one (the local no-auth mode grants everything). */
export interface Grants {
  /** Products whose nodes/requests it may read; `'*'` for all. */
  readonly products: readonly string[] | '*';
  /** Resource types (`doc`, `request`, `network`, ...) it may read; `'*'` for all. */
  readonly types: readonly string[] | '*';
  /** May call `request_intake` / `advance_stage`. */
  readonly propose: boolean;
  /** May create networks and add nodes/edges to them. */
  readonly writeNetworks: boolean;
  /**
   * May decide proposals in the console (approve, reject) in local approval mode. Never
   * reachable over MCP; unset in a token table: false.
   */
  readonly decide?: boolean | undefined;
}

export const ALL_GRANTS: Grants = {
  products: '*',
  types: '*',
  propose: true,
  writeNetworks: true,
  decide: true,
};

/**
 * What a caller may read: resource types and products.
 *
 * The rule for a resource without a product (a network, a catalog node ingested without
 * `product`): it is **shared**, not owned by any product, so any scope granted its type reads
 * it, product-restricted or not. Such nodes are the documentation every product shares (a
 * glossary, the platform's own guides); a corpus that must be private to one product sets
 * `product` on every node. `mayReadProduct` and `productInScopeSql` are the only places the
 * rule is written; every read (in memory or in SQL) goes through one of them.
 */
export interface ReadScope {
  readonly types: readonly string[] | '*';
  readonly products: readonly string[] | '*';
}

/** Everything: for the system's own readers (CLI, reactor, index builders), never a caller. */
export const UNRESTRICTED: ReadScope = { types: '*', products: '*' };

export const readScopeOf = (grants: Grants): ReadScope => ({
  types: grants.types,
  products: grants.products,
});

export const isUnrestricted = (scope: ReadScope): boolean =>
  scope.types === '*' && scope.products === '*';

export const mayReadType = (scope: ReadScope, type: string): boolean =>
  scope.types === '*' || scope.types.includes(type);

/** Whether a resource of `product` is readable; null (shared) always is (see `ReadScope`). */
export const mayReadProduct = (scope: ReadScope, product: string | null): boolean =>
  scope.products === '*' || product === null || scope.products.includes(product);

export const mayRead = (scope: ReadScope, type: string, product: string | null): boolean =>
  mayReadType(scope, type) && mayReadProduct(scope, product);

/**
 * The scope as SQL bind values: null where unrestricted. Queries filter with
 * `typeInScopeSql` and `productInScopeSql`, so the database never hands out a row outside the
 * scope.
 */
export const scopeSqlValues = (
  scope: ReadScope,
): { readonly types: string[] | null; readonly products: string[] | null } => ({
  types: scope.types === '*' ? null : [...scope.types],
  products: scope.products === '*' ? null : [...scope.products],
});

/** SQL: `column` (a type or label) is among those bound at `param` (a text[]; NULL: any). */
export const typeInScopeSql = (column: string, param: string): string =>
  `(${param}::text[] IS NULL OR ${column} = ANY(${param}::text[]))`;

/**
 * SQL: a row whose product is `column` is within the products bound at `param` (a text[];
 * NULL: any). A NULL product is shared (see `ReadScope`), exactly as `mayReadProduct` says.
 */
export const productInScopeSql = (column: string, param: string): string =>
  `(${param}::text[] IS NULL OR ${column} IS NULL OR ${column} = ANY(${param}::text[]))`;

/**
 * The kinds of tool access:
 * - `read`: reads only (also served by the REST surface); always allowed, within the scope;
 * - `propose`: appends proposal events (needs `propose`);
 * - `network-write`: appends network events (needs `writeNetworks` and the `network` type:
 *   writing answers whether a network or node exists, so it needs the right to read them);
 * - `decide`: a maintainer's decision on a proposal or an intake, from the console in local
 *   approval mode (needs `decide` and the `request` type). No MCP tool has this access.
 */
export type Access = 'read' | 'propose' | 'network-write' | 'decide';

/** The OAuth-style scope an access needs (named in 403 `insufficient_scope` challenges). */
export const oauthScopeOf = (access: Access): string =>
  access === 'read'
    ? 'read'
    : access === 'propose'
      ? 'propose'
      : access === 'decide'
        ? 'decide'
        : 'networks:write';

/** The OAuth-style scopes a caller's grants amount to. */
export const oauthScopesOf = (grants: Grants): string[] =>
  (['read', 'propose', 'network-write'] as const)
    .filter((access) => decideAccess(grants, access).allowed)
    .map(oauthScopeOf);

export type AccessDecision =
  | { readonly allowed: true; readonly scope: ReadScope }
  | {
      readonly allowed: false;
      /** The OAuth-style scope that is missing. */
      readonly missing: string;
      /** Why, in words a person or a model can act on (without the actor). */
      readonly reason: string;
    };

/**
 * The access decision of one call: whether this kind of access is granted, and the read scope
 * the call then runs in. Every entry point (MCP tools, REST, resources, subscriptions, the
 * HTTP edge's early 403) asks this function and nothing else.
 */
export const decideAccess = (grants: Grants, access: Access): AccessDecision => {
  const scope = readScopeOf(grants);
  if (access === 'propose' && !grants.propose) {
    return {
      allowed: false,
      missing: oauthScopeOf(access),
      reason: `the "propose" grant is needed to propose requests or stage changes`,
    };
  }
  if (access === 'network-write' && !(grants.writeNetworks && mayReadType(scope, 'network'))) {
    return {
      allowed: false,
      missing: oauthScopeOf(access),
      reason: grants.writeNetworks
        ? 'the "networks:write" grant needs the "network" type as well, to read the networks it changes'
        : 'the "networks:write" grant is needed to create or change networks',
    };
  }
  if (access === 'decide' && !(grants.decide === true && mayReadType(scope, 'request'))) {
    return {
      allowed: false,
      missing: oauthScopeOf(access),
      reason:
        grants.decide === true
          ? 'the "decide" grant needs the "request" type as well, to read what it decides'
          : 'the "decide" grant is needed to approve or reject proposals (a maintainer token)',
    };
  }
  return { allowed: true, scope };
};

/** The decision as an error, for entry points that answer with one. */
export const accessDenied = (
  decision: Extract<AccessDecision, { allowed: false }>,
  what: string,
  actor: string,
): CogitaveError =>
  new CogitaveError(
    'PERMISSION_DENIED',
    `${what} needs the "${decision.missing}" grant, which ${actor} does not have (${decision.reason}); ask an operator for a token that grants it, or use the read-only tools`,
    { missing: decision.missing },
  );

/**
 * A call that names a type outside the scope (`list_requests` without the `request` type) is
 * refused: the refusal depends on the grant and the call only, so it tells nothing about data.
 */
export const requireType = (scope: ReadScope, type: string, what: string): void => {
  if (mayReadType(scope, type)) return;
  throw new CogitaveError(
    'PERMISSION_DENIED',
    `${what}: the grants of this token do not include the "${type}" type; ask an operator for a token that grants it`,
    { type },
  );
};

/** Likewise for a product a call names (a filter, the product of a new request). */
export const requireProduct = (scope: ReadScope, product: string, what: string): void => {
  if (mayReadProduct(scope, product)) return;
  const granted = scope.products === '*' ? '*' : scope.products.join(', ') || '(none)';
  throw new CogitaveError(
    'PERMISSION_DENIED',
    `${what}: the grants of this token cover products ${granted}, not "${product}"`,
    { product },
  );
};
