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
} from '../../../services/catalog/decide.js';
import { toEventsToAppend } from '../../../services/commands/event-ids.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { spec } from '../../support/decider-spec.js';

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

/** The Node decider of uid x.doc. */
const node = spec({
  decide: decideNode,
  evolve: evolveNode,
  initialState: () => initialNodeState('x.doc'),
});
const published = (title: string) => ({
  type: 'NodePublished' as const,
  data: { uid: 'x.doc', contentHash: nodeContentHash(content(title)), content: content(title) },
});

describe('the Node decider', () => {
  it('publishes a new node with its full content and hash', () => {
    node
      .given([])
      .when({ type: 'PublishNode', content: content('A') })
      .then([published('A')]);
  });

  it('given a live node of one source, when another source publishes its uid, then it is refused; a node without a source is claimed', () => {
    const owned = { ...content('A'), source: 'mysite' };
    const { decision: ownedEvents } = node
      .given([])
      .when({ type: 'PublishNode', content: owned })
      .then([expect.objectContaining({ type: 'NodePublished' })]);
    node
      .given(ownedEvents)
      .when({ type: 'PublishNode', content: { ...content('B'), source: 'other' } })
      .thenThrows(CogitaveError, (error) => {
        expect(error).toMatchObject({
          code: 'FAILED_PRECONDITION',
          details: { uid: 'x.doc', source: 'mysite' },
        });
      });
    node
      .given([published('A')])
      .when({ type: 'PublishNode', content: { ...content('A'), source: 'other' } })
      .then([
        expect.objectContaining({
          type: 'NodeRevised',
          data: expect.objectContaining({
            content: expect.objectContaining({ source: 'other' }) as object,
          }) as object,
        }),
      ]);
  });

  it('decides nothing for unchanged content, a revision for changed content', () => {
    const live = node.given([published('A')]);
    live.when({ type: 'PublishNode', content: content('A') }).then([]);
    live.when({ type: 'PublishNode', content: content('B') }).then([
      {
        type: 'NodeRevised',
        data: {
          uid: 'x.doc',
          contentHash: nodeContentHash(content('B')),
          content: content('B'),
          previousContentHash: nodeContentHash(content('A')),
        },
      },
    ]);
  });

  it('retires a live node once, carrying its last content', () => {
    const retire = { type: 'RetireNode', uid: 'x.doc', reason: 'gone' } as const;
    const retired = {
      type: 'NodeRetired' as const,
      data: {
        uid: 'x.doc',
        contentHash: nodeContentHash(content('A')),
        content: content('A'),
        reason: 'gone',
      },
    };
    node
      .given([published('A')])
      .when(retire)
      .then([retired]);
    node
      .given([published('A'), retired])
      .when(retire)
      .then([]);
    node.given([]).when(retire).then([]);
  });

  it('republishes a retired node', () => {
    const { decision: retired } = node
      .given([published('A')])
      .when({ type: 'RetireNode', uid: 'x.doc', reason: 'r' })
      .then([expect.objectContaining({ type: 'NodeRetired' })]);
    node
      .given([published('A'), ...retired])
      .when({ type: 'PublishNode', content: content('A') })
      .then([published('A')]);
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
