import { toDirectedGraph } from 'xstate/graph';
import { describeDod } from './dod.js';
import { lifecycleMachine, type LifecycleEventType, type LifecycleGuardName } from './machine.js';
import { isStage, TERMINAL_STAGES, type Stage } from './stages.js';

/**
 * The machine's edges, read from the machine itself (`toDirectedGraph`), never restated by
 * hand: validate.ts explains refusals with them and TRANSITIONS.md is rendered from them, so
 * neither can disagree with what `snapshot.can` decides.
 */

const STAGE_GUARDS = ['dodMet', 'resumesTo'] as const;
const PLAIN_GUARDS = [
  'noPendingProposal',
  'approverIsNotProposer',
  'actorIsOwner',
  'proposerIsOwner',
] as const;
type StageGuardName = (typeof STAGE_GUARDS)[number];
type PlainGuardName = (typeof PLAIN_GUARDS)[number];

export type GuardRef =
  | { readonly type: StageGuardName; readonly params: { readonly stage: Stage } }
  | { readonly type: PlainGuardName };

export interface LifecycleEdge {
  readonly from: Stage;
  readonly to: Stage;
  readonly event: LifecycleEventType;
  /** The guards of the edge, all of which must hold (the machine combines them with `and`). */
  readonly guards: readonly GuardRef[];
}

const isStageGuard = (name: unknown): name is StageGuardName =>
  (STAGE_GUARDS as readonly unknown[]).includes(name);
const isPlainGuard = (name: unknown): name is PlainGuardName =>
  (PLAIN_GUARDS as readonly unknown[]).includes(name);

const unreadable = (what: string): Error =>
  new Error(`lifecycle machine: ${what}; extend lifecycle/transitions.ts to read it`);

const stageParam = (params: unknown): { readonly stage: Stage } => {
  const stage: unknown =
    typeof params === 'object' && params !== null ? Reflect.get(params, 'stage') : undefined;
  if (!isStage(stage)) throw unreadable(`guard params ${JSON.stringify(params)} name no stage`);
  return { stage };
};

/** Flattens the guard of a transition (a name, `{ type, params }`, or `and([...])`). */
const flattenGuard = (guard: unknown): GuardRef[] => {
  if (guard === undefined) return [];
  if (typeof guard === 'string') {
    if (!isPlainGuard(guard)) throw unreadable(`guard "${guard}" is unknown or needs params`);
    return [{ type: guard }];
  }
  if (typeof guard === 'function') {
    // xstate's and() returns a function carrying its operands in `guards`.
    const operands: unknown = Reflect.get(guard, 'guards');
    if (guard.name !== 'and' || !Array.isArray(operands)) {
      throw unreadable(`only and([...]) guards are supported, found ${guard.name || 'a function'}`);
    }
    return operands.flatMap((operand: unknown) => flattenGuard(operand));
  }
  if (typeof guard === 'object' && guard !== null) {
    const type: unknown = Reflect.get(guard, 'type');
    if (isStageGuard(type)) return [{ type, params: stageParam(Reflect.get(guard, 'params')) }];
    if (isPlainGuard(type)) return [{ type }];
  }
  throw unreadable(`guard ${JSON.stringify(guard)} is not one of the named lifecycle guards`);
};

const isLifecycleEventType = (text: string): text is LifecycleEventType =>
  text === 'withdraw' ||
  text === 'maintainer_withdraw' ||
  text === 'reject_intake' ||
  (text.startsWith('advance.') && isStage(text.slice('advance.'.length)));

const readEdges = (): LifecycleEdge[] =>
  toDirectedGraph(lifecycleMachine).children.flatMap((node) =>
    node.edges.map((edge) => {
      const from = edge.source.key;
      const to = edge.target.key;
      const event = edge.label.text;
      if (!isStage(from) || !isStage(to))
        throw unreadable(`edge ${from} → ${to} leaves the stages`);
      if (!isLifecycleEventType(event))
        throw unreadable(`event "${event}" is not a lifecycle event`);
      return { from, to, event, guards: flattenGuard(edge.transition.guard) };
    }),
  );

export const LIFECYCLE_EDGES: readonly LifecycleEdge[] = readEdges();

export const renderGuard = (guard: GuardRef): string =>
  'params' in guard ? `${guard.type}(stage: ${guard.params.stage})` : guard.type;

const GUARD_MEANING: Readonly<Record<LifecycleGuardName, string>> = {
  dodMet:
    'the Definition of Done of `stage` holds for the request facts plus the proposal evidence',
  noPendingProposal: 'no other stage proposal of the request is waiting for approval',
  approverIsNotProposer: 'on approval: the approver is not the proposer (four eyes)',
  resumesTo: 'the request was deferred from `stage`; it resumes there and nowhere else',
  actorIsOwner: "the actor is the request's intake proposer or its requester",
  proposerIsOwner: "the proposer is the request's intake proposer or its requester",
};

const transitionTable = (): string[] => [
  '| From | To | Event | Guards (all must hold) |',
  '| --- | --- | --- | --- |',
  ...LIFECYCLE_EDGES.map(
    (edge) =>
      `| \`${edge.from}\` | \`${edge.to}\` | \`${edge.event}\` | ${
        edge.guards.length === 0 ? '—' : edge.guards.map((g) => `\`${renderGuard(g)}\``).join(', ')
      } |`,
  ),
];

const mermaid = (): string[] => [
  '```mermaid',
  'stateDiagram-v2',
  ...lifecycleMachine.root.initial.target.map((node) => `  [*] --> ${node.key}`),
  ...LIFECYCLE_EDGES.map((edge) => `  ${edge.from} --> ${edge.to} : ${edge.event}`),
  ...TERMINAL_STAGES.map((stage) => `  ${stage} --> [*]`),
  '```',
];

const dodSection = (): string[] =>
  describeDod().flatMap(({ stage, items }) => [
    `### \`${stage}\``,
    '',
    ...(items.length === 0
      ? ['No items.']
      : items.map((item) => `- \`${item.id}\`: ${item.description}`)),
    '',
  ]);

/** The whole of lifecycle/TRANSITIONS.md (before Prettier formats its tables). */
export const renderTransitionsDocument = (): string =>
  [
    '# Request lifecycle transitions',
    '',
    '<!-- Generated from lifecycle/machine.ts and lifecycle/dod.ts by `npm run docs:lifecycle`; do not edit. -->',
    '',
    'Every stage change of a request is one edge of the XState machine in `lifecycle/machine.ts`.',
    'Stage proposals send `advance.<to>`: checked when proposed (no approver yet) and again when',
    "approved (with the approver). `withdraw` (by the request's owner), `maintainer_withdraw` and",
    '`reject_intake` (by a maintainer) are direct commands; over MCP an owner asks to withdraw',
    'by proposing `withdrawn`, which a maintainer approves.',
    '',
    '## Transitions',
    '',
    ...transitionTable(),
    '',
    '## Guards',
    '',
    ...Object.entries(GUARD_MEANING).map(([name, meaning]) => `- \`${name}\`: ${meaning}.`),
    '',
    '## State diagram',
    '',
    ...mermaid(),
    '',
    '## Definition of Done (to leave each stage)',
    '',
    ...dodSection(),
  ].join('\n');
