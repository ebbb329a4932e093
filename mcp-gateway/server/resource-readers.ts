import { readCatalogResource } from '../../projections/catalog/queries.js';
import { readNetworkResource } from '../../projections/networks/queries.js';
import { getRequest } from '../../projections/requests/queries.js';
import { REQUEST_RESOURCE_TYPE, requestDocument } from '../../projections/requests/state.js';
import { NODE_LABELS } from '../../services/catalog/vocabulary.js';
import type { ResourceReader, ResourceReaders } from './readers.js';

const readRequest: ResourceReader = async (db, id) => {
  const state = await getRequest(db, id);
  return state ? requestDocument(state) : undefined;
};

const readCatalog =
  (type: string): ResourceReader =>
  async (db, id) =>
    (await readCatalogResource(db, type, id))?.document;

const readNetwork: ResourceReader = async (db, id) => (await readNetworkResource(db, id))?.document;

/**
 * Every resource type the gateway serves and the reader of its documents. A read model adds
 * its type here with one line.
 */
export const defaultResourceReaders = (): ResourceReaders =>
  new Map<string, ResourceReader>([
    [REQUEST_RESOURCE_TYPE, readRequest],
    ...NODE_LABELS.filter((spec) => spec.source === 'catalog').map(
      (spec): [string, ResourceReader] => [spec.resourceType, readCatalog(spec.resourceType)],
    ),
    ['network', readNetwork],
  ]);
