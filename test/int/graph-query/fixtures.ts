import type { Database } from '../../../services/database/database.js';
import {
  insertEdges,
  upsertNodes,
  insertRequest,
  type EdgeRow,
  type NodeRow,
} from '../../support/catalog-read-model.js';

/**
 * A small catalog with known answers: a learning path of two modules and four units (a
 * prerequisite chain u1 → u2 → u3 → u4), skills, two docs linking each other (a cycle), ADRs
 * and two requests.
 */
export const CATALOG_NODES: readonly NodeRow[] = [
  { uid: 'p1', label: 'LearningPath', title: 'Path One', product: 'learn' },
  { uid: 'm1', label: 'Module', title: 'Module One', product: 'learn' },
  { uid: 'm2', label: 'Module', title: 'Module Two', product: 'learn' },
  { uid: 'u1', label: 'Unit', title: 'Intro to events', attributes: { durationInMinutes: 10 } },
  {
    uid: 'u2',
    label: 'Unit',
    title: 'Streams and revisions',
    attributes: { durationInMinutes: 25 },
  },
  { uid: 'u3', label: 'Unit', title: 'Projections', attributes: { durationInMinutes: 40 } },
  { uid: 'u4', label: 'Unit', title: 'Replay and audit', attributes: { durationInMinutes: 5 } },
  { uid: 's1', label: 'Skill', title: 'Event modelling' },
  { uid: 's2', label: 'Skill', title: 'Read models' },
  {
    uid: 'd1',
    label: 'Doc',
    title: 'Event store',
    product: 'core',
    monikers: ['latest', '2025-01'],
  },
  { uid: 'd2', label: 'Doc', title: 'Networks overview', product: 'networks' },
  {
    uid: 'adr1',
    label: 'ADR',
    title: 'Use Postgres',
    attributes: { status: 'superseded', date: '2025-01-10' },
  },
  {
    uid: 'adr2',
    label: 'ADR',
    title: 'Use Postgres 15',
    attributes: { status: 'accepted', date: '2026-02-01' },
  },
];

export const CATALOG_EDGES: readonly EdgeRow[] = [
  ['m1', 'partOf', 'p1'],
  ['m2', 'partOf', 'p1'],
  ['u1', 'partOf', 'm1'],
  ['u2', 'partOf', 'm1'],
  ['u3', 'partOf', 'm2'],
  ['u4', 'partOf', 'm2'],
  ['u1', 'prerequisiteOf', 'u2'],
  ['u2', 'prerequisiteOf', 'u3'],
  ['u3', 'prerequisiteOf', 'u4'],
  ['u1', 'teaches', 's1'],
  ['u3', 'teaches', 's1'],
  ['m2', 'teaches', 's2'],
  ['d1', 'xref', 'd2'],
  ['d2', 'xref', 'd1'],
  ['d1', 'dependsOn', 'adr2'],
  ['adr2', 'supersedes', 'adr1'],
  // A dangling edge: its target was retired; joins to nodes must drop it.
  ['d2', 'relatedTo', 'retired-node'],
];

export const seedCatalog = async (database: Database): Promise<void> => {
  await upsertNodes(database, CATALOG_NODES);
  await insertEdges(database, CATALOG_EDGES);
  await insertRequest(database, {
    id: 'req-2026-0001',
    title: 'Add replay metrics',
    product: 'core',
    stage: 'proposed',
    status: 'draft',
  });
  await insertRequest(database, {
    id: 'req-2026-0002',
    title: 'Speed up projections',
    product: 'core',
    stage: 'accepted',
    status: 'active',
  });
};
