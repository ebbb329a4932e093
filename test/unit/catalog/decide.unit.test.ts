import { describe, expect, it } from 'vitest';
import {
  nodeContentHash,
  normalizeContent,
  type NodeContent,
} from '../../../services/catalog/content.js';
import {
  decideNode,
  evolveNode,
  initialNodeState,
  nodeEventIds,
  type NodeState,
} from '../../../services/catalog/decide.js';
import { toEventsToAppend } from '../../../services/commands/event-ids.js';

const content = (title: string): NodeContent =>
  normalizeContent({
    uid: 'x.doc',
    label: 'Doc',
    title,
    summary: '',
    body: 'Body',
    product: null,
    monikers: ['latest'],
    attributes: {},
    edges: [],
    sourcePath: 'x.md',
  });
const meta = { commandId: 'c1', actor: 'test', at: '2026-01-05T09:00:00.000Z' };

const fold = (state: NodeState, ...events: ReturnType<typeof decideNode>): NodeState =>
  events.reduce(evolveNode, state);

describe('the Node decider', () => {
  it('publishes a new node with its full content and hash', () => {
    const events = decideNode(
      { type: 'PublishNode', content: content('A') },
      initialNodeState('x.doc'),
    );
    expect(events).toEqual([
      {
        type: 'NodePublished',
        data: { uid: 'x.doc', contentHash: nodeContentHash(content('A')), content: content('A') },
      },
    ]);
  });

  it('given a live node of one source, when another source publishes its uid, then it is refused; a node without a source is claimed', () => {
    const owned = { ...content('A'), source: 'mysite' };
    const state = fold(
      initialNodeState('x.doc'),
      ...decideNode({ type: 'PublishNode', content: owned }, initialNodeState('x.doc')),
    );
    expect(() =>
      decideNode({ type: 'PublishNode', content: { ...content('B'), source: 'other' } }, state),
    ).toThrow(
      expect.objectContaining({
        code: 'FAILED_PRECONDITION',
        details: { uid: 'x.doc', source: 'mysite' },
      }) as Error,
    );
    const legacy = fold(
      initialNodeState('x.doc'),
      ...decideNode({ type: 'PublishNode', content: content('A') }, initialNodeState('x.doc')),
    );
    expect(
      decideNode({ type: 'PublishNode', content: { ...content('A'), source: 'other' } }, legacy),
    ).toMatchObject([{ type: 'NodeRevised', data: { content: { source: 'other' } } }]);
  });

  it('decides nothing for unchanged content, a revision for changed content', () => {
    const state = fold(
      initialNodeState('x.doc'),
      ...decideNode({ type: 'PublishNode', content: content('A') }, initialNodeState('x.doc')),
    );
    expect(decideNode({ type: 'PublishNode', content: content('A') }, state)).toEqual([]);
    const [revised] = decideNode({ type: 'PublishNode', content: content('B') }, state);
    expect(revised).toMatchObject({
      type: 'NodeRevised',
      data: { previousContentHash: nodeContentHash(content('A')), content: { title: 'B' } },
    });
  });

  it('retires a live node once, carrying its last content', () => {
    const live = fold(
      initialNodeState('x.doc'),
      ...decideNode({ type: 'PublishNode', content: content('A') }, initialNodeState('x.doc')),
    );
    const retire = { type: 'RetireNode', uid: 'x.doc', reason: 'gone' } as const;
    const events = decideNode(retire, live);
    expect(events).toMatchObject([
      { type: 'NodeRetired', data: { reason: 'gone', content: { title: 'A' } } },
    ]);
    expect(decideNode(retire, fold(live, ...events))).toEqual([]);
    expect(decideNode(retire, initialNodeState('x.doc'))).toEqual([]);
  });

  it('republishes a retired node', () => {
    const published = decideNode(
      { type: 'PublishNode', content: content('A') },
      initialNodeState('x.doc'),
    );
    const live = fold(initialNodeState('x.doc'), ...published);
    const retired = fold(
      live,
      ...decideNode({ type: 'RetireNode', uid: 'x.doc', reason: 'r' }, live),
    );
    expect(decideNode({ type: 'PublishNode', content: content('A') }, retired)[0]?.type).toBe(
      'NodePublished',
    );
  });

  it('derives event ids from the decision, not from the run', () => {
    const state = initialNodeState('x.doc');
    const events = decideNode({ type: 'PublishNode', content: content('A') }, state);
    const first = toEventsToAppend(events, meta, nodeEventIds(state, events));
    const again = toEventsToAppend(
      events,
      { ...meta, commandId: 'c2', at: '2027-01-01T00:00:00.000Z' },
      nodeEventIds(state, events),
    );
    expect(again.map((e) => e.id)).toEqual(first.map((e) => e.id));
    const other = nodeEventIds(
      state,
      decideNode({ type: 'PublishNode', content: content('B') }, state),
    );
    expect(other[0]).not.toBe(first[0]?.id);
  });

  it('hashes content independently of edge and moniker order', () => {
    const a = normalizeContent({
      ...content('A'),
      monikers: ['latest', '2025-10'],
      edges: [
        { type: 'xref', target: 'b', ordinal: 0, origin: 'text' },
        { type: 'dependsOn', target: 'c', ordinal: 0, origin: 'frontMatter' },
      ],
    });
    const b = normalizeContent({
      ...a,
      monikers: ['2025-10', 'latest'],
      edges: [...a.edges].reverse(),
    });
    expect(nodeContentHash(b)).toBe(nodeContentHash(a));
  });
});
