import { isUnrestricted, mayRead, type ReadScope } from '../access/grants.js';
import { labelSpec } from '../catalog/vocabulary.js';

/**
 * The partition a catalog node's search statistics count in: its label and product, the two
 * things a read scope admits or refuses (a label's resource type is what `types` grants). A
 * restricted search scores with the statistics of the partitions its scope admits only, so
 * nothing it sees depends on a node it may not read.
 */
export const partitionOf = (label: string, product: string | null): string =>
  JSON.stringify([label, product]);

const labelAndProduct = (partition: string): [string, string | null] => {
  const parsed = JSON.parse(partition) as unknown;
  if (Array.isArray(parsed)) {
    const [label, product] = parsed as unknown[];
    if (typeof label === 'string' && (typeof product === 'string' || product === null)) {
      return [label, product];
    }
  }
  throw new TypeError(`not a search partition: ${partition}`);
};

/**
 * The partitions a scope admits, by the same rule as every read (`mayRead`); undefined for
 * the unrestricted scope, which searches the whole corpus with every signal.
 */
export const partitionScope = (scope: ReadScope): ((partition: string) => boolean) | undefined => {
  if (isUnrestricted(scope)) return undefined;
  return (partition) => {
    // Documents indexed without a partition ('') belong to no label a scope could grant.
    if (partition === '') return false;
    const [label, product] = labelAndProduct(partition);
    return mayRead(scope, labelSpec(label)?.resourceType ?? '', product);
  };
};
