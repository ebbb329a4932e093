/**
 * One valid argument set per registered tool, for the "call every tool" tests. A tool added to
 * ALL_TOOLS without an entry here fails those tests until it gets one.
 */
export interface SampleState {
  /** Differs per client, so each creates its own request and network. */
  readonly suffix: string;
  requestId?: string;
}

export interface ToolSample {
  /** Calls made first (e.g. a second node for an edge). */
  readonly before?: readonly { tool: string; args: (state: SampleState) => object }[];
  readonly args: (state: SampleState) => object;
}

const network = (state: SampleState): string => `e2e_${state.suffix}`;

const requestId = (state: SampleState): string => {
  if (state.requestId === undefined) throw new Error('request_intake must run before this tool');
  return state.requestId;
};

export const TOOL_SAMPLES: Readonly<Record<string, ToolSample>> = {
  describe_schema: { args: () => ({}) },
  docs_search: { args: () => ({ query: 'event store', limit: 5 }) },
  code_sample_search: { args: () => ({ query: 'connect a client', limit: 3 }) },
  docs_fetch: { args: () => ({ uid: 'cogitave.core.architecture' }) },
  get_related: { args: () => ({ uid: 'cogitave.core.architecture', direction: 'both' }) },
  get_learning_path: { args: () => ({ target_uid: 'cogitave.learn.path.agent-onboarding' }) },
  resolve_xref: { args: () => ({ xref: '@cogitave.core.architecture' }) },
  query_graph: { args: () => ({ query: 'MATCH (d:Doc) RETURN d.uid LIMIT 5' }) },
  request_intake: {
    args: (state) => ({
      title: `Export audit trails as CSV (${state.suffix})`,
      problem: 'Auditors copy history by hand today, which takes hours per request and loses rows.',
      product: 'core',
      requester: 'audit-team',
      acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
    }),
  },
  list_requests: { args: () => ({ product: 'core', limit: 5 }) },
  get_request: { args: (state) => ({ request_id: requestId(state) }) },
  get_dod: { args: (state) => ({ request_id: requestId(state) }) },
  advance_stage: {
    args: (state) => ({
      request_id: requestId(state),
      to_stage: 'accepted',
      evidence: {},
      rationale: 'The problem is real and the acceptance criterion is measurable.',
    }),
  },
  network_create: {
    args: (state) => ({ network_name: network(state), description: 'Module dependencies' }),
  },
  network_list: { args: () => ({ limit: 10 }) },
  network_add_node: {
    args: (state) => ({
      network_name: network(state),
      node_id: 'agents',
      data: 'Agents',
      attributes: { layer: 2 },
    }),
  },
  network_add_edge: {
    before: [
      {
        tool: 'network_add_node',
        args: (state) => ({ network_name: network(state), node_id: 'logging' }),
      },
    ],
    args: (state) => ({
      network_name: network(state),
      source: 'agents',
      target: 'logging',
      attributes: { relation: 'depends_on' },
    }),
  },
  network_add_nodes: {
    args: (state) => ({
      network_name: network(state),
      nodes: [
        { node_id: 'cli', data: 'CLI', attributes: { layer: 3 } },
        { node_id: 'agents' },
        { node_id: 'store' },
      ],
    }),
  },
  network_add_edges: {
    args: (state) => ({
      network_name: network(state),
      edges: [
        { source: 'cli', target: 'agents', weight: 2 },
        { source: 'agents', target: 'store', attributes: { relation: 'writes' } },
      ],
    }),
  },
  network_get_neighbors: {
    args: (state) => ({ network_name: network(state), node_id: 'agents' }),
  },
};

/** Calls in an order where every tool finds what it needs (unknown tools last). */
export const callOrder = (names: readonly string[]): string[] => {
  const known = Object.keys(TOOL_SAMPLES);
  const rank = (name: string): number => {
    const index = known.indexOf(name);
    return index === -1 ? known.length : index;
  };
  return [...names].sort((a, b) => rank(a) - rank(b));
};
