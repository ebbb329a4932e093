import type { ApprovalMode } from '../services.js';

/** How a proposal is decided, as an agent is told it: only what is true in this mode. */
export const howMaintainersDecide = (mode: ApprovalMode): string =>
  mode.kind === 'github'
    ? `a maintainer approves it on GitHub (${mode.repository}): merging its draft pull request approves, closing it rejects`
    : 'a maintainer approves it on this machine with `cogitave proposals approve` or in the console (/console), or rejects it with `cogitave proposals reject`';

/** What a new agent reads first (the `instructions` of initialize / server/discover). */
export const serverInstructions = (mode: ApprovalMode): string =>
  [
    'Cogitave Core: a typed knowledge graph (docs, articles, units, modules, learning paths, ADRs, skills, code samples), agent-built networks, and an event-sourced request lifecycle.',
    'Call describe_schema first: it lists the node labels, edge types, resource URI types and query limits every other tool speaks.',
    'Read with docs_search / docs_fetch / get_related / query_graph, or as resources at cogitave://{type}/{id} (cogitave://{type}/ lists a collection).',
    `You can only propose work: request_intake and advance_stage append proposals (to withdraw your own request, propose the stage "withdrawn"); nothing protected changes until ${howMaintainersDecide(mode)}.`,
    'Bad input comes back as a tool result with isError: true and a message naming what to fix; change the arguments rather than retrying as is.',
  ].join('\n');
