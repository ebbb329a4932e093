import { describe, expect, it } from 'vitest';
import {
  mayRead,
  mayReadProduct,
  productInScopeSql,
  type ReadScope,
} from '../../../services/access/grants.js';

const ALPHA_DOCS: ReadScope = { types: ['doc'], products: ['alpha'] };

describe('the shared-node rule (a resource without a product)', () => {
  it('given a product-restricted scope, when a node has no product, then it is read like one of its own', () => {
    expect(mayReadProduct(ALPHA_DOCS, null)).toBe(true);
    expect(mayRead(ALPHA_DOCS, 'doc', null)).toBe(true);
  });

  it('given the same scope, when the shared node is of a type outside it, then it is not read', () => {
    expect(mayRead(ALPHA_DOCS, 'adr', null)).toBe(false);
  });

  it('given the same scope, when a node belongs to another product, then it is not read', () => {
    expect(mayRead(ALPHA_DOCS, 'doc', 'beta')).toBe(false);
    expect(mayRead(ALPHA_DOCS, 'doc', 'alpha')).toBe(true);
  });

  it('the SQL condition states the same rule: unrestricted, shared, or a granted product', () => {
    expect(productInScopeSql('n.product', '$2')).toBe(
      '($2::text[] IS NULL OR n.product IS NULL OR n.product = ANY($2::text[]))',
    );
  });
});
