import { invalidParams } from './protocol.js';

/**
 * Prompts a client can offer its user: short, task-shaped starting points that lead the model
 * to the right tools (every capability stays reachable through tools alone).
 */
interface PromptEntry {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

const PROMPTS: readonly PromptEntry[] = [
  {
    name: 'explore_catalog',
    title: 'Explore the catalog',
    description: 'Start a session: learn the schema, then search the knowledge graph for a topic.',
    arguments: [{ name: 'topic', description: 'What to look for', required: false }],
  },
  {
    name: 'propose_request',
    title: 'Propose a request',
    description: 'Draft an intake for a new request with measurable acceptance criteria.',
    arguments: [
      { name: 'idea', description: 'The change you want, in a sentence', required: true },
    ],
  },
];

/** The prompts' names (an extension may not reuse one). */
export const PROMPT_NAMES: ReadonlySet<string> = new Set(PROMPTS.map((prompt) => prompt.name));

export const listPrompts = () => ({
  prompts: PROMPTS.map((prompt) => ({ ...prompt, arguments: [...prompt.arguments] })),
});

export const getPrompt = (name: string, args: Record<string, string> | undefined) => {
  const user = (text: string) => ({
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
  });
  if (name === 'explore_catalog') {
    const topic = args?.topic?.trim();
    return {
      description: 'Explore the Cogitave catalog',
      ...user(
        `Call describe_schema to learn the node labels, edge types and URI types. Then ${
          topic
            ? `find what the catalog says about "${topic}" with docs_search`
            : 'summarise what the catalog holds'
        }, fetch the most relevant results with docs_fetch and follow get_related where useful. Cite resource URIs (cogitave://{type}/{id}).`,
      ),
    };
  }
  if (name === 'propose_request') {
    const idea = args?.idea?.trim();
    if (!idea) throw invalidParams('propose_request needs the argument "idea" (a sentence)');
    return {
      description: 'Draft a request intake',
      ...user(
        `Draft a request for: "${idea}". Check list_requests for a similar open request first. Then write a title, the problem it solves, the product it belongs to, the requester and 2-5 measurable acceptance criteria, show them to me, and call request_intake only after I confirm. Use get_dod with stage "proposed" to see what the intake must satisfy.`,
      ),
    };
  }
  throw invalidParams(
    `Unknown prompt "${name}"; available: ${PROMPTS.map((prompt) => prompt.name).join(', ')}`,
  );
};
