import type { CatalogEdgeRow, CatalogNodeSummary } from './read-model/queries.js';
import { CogitaveError } from '../runtime/errors.js';

/**
 * Orders what leads to a target, pure over an in-memory slice of the graph: prerequisites
 * (`A prerequisiteOf B`: A first) before the node; a module or path, then its parts in their
 * `partOf` ordinal order; for a skill, the units/modules that teach it, then the skill. Known
 * nodes are skipped together with everything they cover. A cycle is an error naming it.
 */
export interface LearningGraph {
  readonly nodes: Map<string, CatalogNodeSummary>;
  /** Edges by target uid (prerequisiteOf, partOf, teaches). */
  readonly incoming: Map<string, CatalogEdgeRow[]>;
}

export interface PathStep {
  readonly uid: string;
  readonly reason: 'target' | 'prerequisite' | 'part' | 'teaches';
  /** The container this step is a part of, for `part` steps. */
  readonly parent?: string;
}

export class LearningCycle extends CogitaveError {
  constructor(cycle: readonly string[]) {
    super(
      'FAILED_PRECONDITION',
      `The learning order has a cycle: ${cycle.join(' → ')} (each must come before the next); fix the prerequisiteOf/partOf edges of these nodes.`,
      { cycle },
    );
  }
}

const byOrdinal = (a: CatalogEdgeRow, b: CatalogEdgeRow): number =>
  a.ordinal - b.ordinal || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0);

export const findLearningPath = (
  graph: LearningGraph,
  target: string,
  known: ReadonlySet<string>,
): { order: PathStep[]; skipped: string[] } => {
  const order: PathStep[] = [];
  const skipped = new Set<string>();
  const done = new Set<string>();
  const stack: string[] = [];
  const edgesInto = (uid: string, type: string): CatalogEdgeRow[] =>
    (graph.incoming.get(uid) ?? []).filter((edge) => edge.type === type).sort(byOrdinal);

  const visit = (uid: string, reason: PathStep['reason'], parent?: string): void => {
    if (known.has(uid)) {
      skipped.add(uid);
      return;
    }
    const onStack = stack.indexOf(uid);
    if (onStack !== -1) {
      // stack[i+1] needs stack[i]; in learning order that is the reverse.
      throw new LearningCycle([uid, ...stack.slice(onStack + 1).reverse(), uid]);
    }
    if (done.has(uid) || !graph.nodes.has(uid)) return;
    stack.push(uid);
    for (const edge of edgesInto(uid, 'prerequisiteOf')) visit(edge.source, 'prerequisite');
    const isSkill = graph.nodes.get(uid)?.label === 'Skill';
    if (isSkill) for (const edge of edgesInto(uid, 'teaches')) visit(edge.source, 'teaches');
    const emit = (): void => {
      done.add(uid);
      order.push(parent === undefined ? { uid, reason } : { uid, reason, parent });
    };
    if (isSkill) emit();
    else {
      emit();
      for (const edge of edgesInto(uid, 'partOf')) visit(edge.source, 'part', uid);
    }
    stack.pop();
  };

  visit(target, 'target');
  return { order, skipped: [...skipped].sort() };
};
