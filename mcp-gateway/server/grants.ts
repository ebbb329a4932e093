import type { Caller, Grants, ToolAccess } from '../registry.js';

/** The local no-auth mode (stdio, or HTTP on loopback without tokens): everything, as `local`. */
export const LOCAL_CALLER: Caller = {
  actor: 'local',
  grants: { products: '*', types: '*', propose: true, writeNetworks: true },
};

/** The OAuth-style scope a tool's access needs (named in 403 `insufficient_scope` challenges). */
export const scopeForAccess = (access: ToolAccess): string =>
  access === 'read' ? 'read' : access === 'propose' ? 'propose' : 'networks:write';

export const mayUseAccess = (grants: Grants, access: ToolAccess): boolean =>
  access === 'read' || (access === 'propose' ? grants.propose : grants.writeNetworks);

export const mayReadType = (grants: Grants, type: string): boolean =>
  grants.types === '*' || grants.types.includes(type);

/** A resource without a product (e.g. a network) is readable by any caller granted its type. */
export const mayReadProduct = (grants: Grants, product: string | null): boolean =>
  grants.products === '*' || product === null || grants.products.includes(product);

export const mayRead = (grants: Grants, type: string, product: string | null): boolean =>
  mayReadType(grants, type) && mayReadProduct(grants, product);
