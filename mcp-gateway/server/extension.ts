import type {
  CallToolResult,
  GetPromptResult,
  InputRequiredResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerContext,
  Tool,
} from '@modelcontextprotocol/server';
import type { Caller } from '../registry.js';

/** What an extension's handler is told beside its request: who calls, on which revision. */
export interface ExtensionCall {
  readonly caller: Caller;
  readonly era: 'legacy' | 'modern';
  /** The SDK's request context: notify, log, server-to-client requests, multi-round input. */
  readonly ctx: ServerContext;
}

export interface ExtensionTool {
  /** The `tools/list` entry, as sent. */
  readonly entry: Tool;
  readonly call: (
    args: Record<string, unknown> | undefined,
    call: ExtensionCall,
  ) => Promise<CallToolResult | InputRequiredResult>;
}

export interface ExtensionPrompt {
  readonly entry: Prompt;
  readonly get: (
    args: Record<string, string> | undefined,
    call: ExtensionCall,
  ) => Promise<GetPromptResult | InputRequiredResult>;
}

/**
 * Tools, prompts and resources served beside the registry's, in their wire form. The product
 * composes none: the conformance harness (test/conformance/) serves the suite's fixtures this
 * way, so its scenarios run through this gateway (transports, sessions, grants, errors) instead
 * of a stand-in server. Names and URIs must not collide with the registry's.
 */
export interface GatewayExtension {
  readonly tools?: readonly ExtensionTool[];
  readonly prompts?: readonly ExtensionPrompt[];
  /** Listed on the first page of `resources/list`. */
  readonly resources?: readonly Resource[];
  readonly resourceTemplates?: readonly ResourceTemplateType[];
  /** The contents of `uri`, or undefined when the URI is not the extension's. */
  readonly read?: (uri: string, call: ExtensionCall) => Promise<ReadResourceResult> | undefined;
}

/** The extension's tools and prompts by name; a name the registry also has is a wiring error. */
export const indexExtension = (
  extension: GatewayExtension | undefined,
  registryTools: ReadonlySet<string>,
  registryPrompts: ReadonlySet<string>,
) => {
  const tools = new Map((extension?.tools ?? []).map((tool) => [tool.entry.name, tool]));
  const prompts = new Map((extension?.prompts ?? []).map((prompt) => [prompt.entry.name, prompt]));
  for (const name of tools.keys())
    if (registryTools.has(name)) throw new Error(`extension tool ${name} shadows a registry tool`);
  for (const name of prompts.keys())
    if (registryPrompts.has(name)) throw new Error(`extension prompt ${name} shadows a prompt`);
  return {
    tools,
    prompts,
    toolEntries: [...tools.values()].map((tool) => tool.entry),
    promptEntries: [...prompts.values()].map((prompt) => prompt.entry),
    resources: extension?.resources ?? [],
    resourceTemplates: extension?.resourceTemplates ?? [],
    read: extension?.read,
  };
};
