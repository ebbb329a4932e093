/* eslint-disable @typescript-eslint/no-deprecated --
 * The 2025-11-25 scenarios test exactly the push-style requests (elicitInput, requestSampling)
 * and logging that 2026-07-28 deprecates; the 2026 fixtures use input_required results. */
import { createHmac, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ElicitRequestFormParams,
} from '@modelcontextprotocol/server';
import type {
  ExtensionCall,
  ExtensionPrompt,
  ExtensionTool,
  GatewayExtension,
} from '../../mcp-gateway/server/extension.js';

/**
 * The fixtures the MCP conformance suite calls by name (`test_*` tools and prompts,
 * `test://` resources), served through the real gateway by the test-only composition in
 * `server.ts`: every scenario then exercises our transports, sessions, error mapping and both
 * protocol revisions rather than failing for a missing name. Behaviour follows each
 * scenario's own description in `@modelcontextprotocol/conformance`.
 */

/** A 1×1 PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A 10 ms, 8 kHz, 8-bit mono WAV of silence, built here rather than pasted in. */
const WAV_BASE64 = (() => {
  const samples = 80;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
})();

const EMPTY_INPUT = { type: 'object' as const, properties: {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const tool = (
  name: string,
  description: string,
  call: ExtensionTool['call'],
  inputSchema: ExtensionTool['entry']['inputSchema'] = EMPTY_INPUT,
): ExtensionTool => ({ entry: { name, description, inputSchema }, call });

/** Text of one field of an accepted elicitation in `inputResponses`, or `fallback`. */
const elicited = (responses: Record<string, unknown> | undefined, key: string, field: string) => {
  const content = (responses?.[key] as { content?: Record<string, unknown> } | undefined)?.content;
  const value = content?.[field];
  return typeof value === 'string' ? value : undefined;
};

const elicit = (message: string, field: string, type = 'string') =>
  inputRequired.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: { [field]: { type } },
      required: [field],
    },
  } as ElicitRequestFormParams);

const sample = (prompt: string, maxTokens: number) =>
  inputRequired.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
    maxTokens,
  });

/** requestState that round-trips through the client, so it is signed (MRTR rule 4–5). */
const stateKey = randomBytes(32);
const signState = (payload: Record<string, unknown>): string => {
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${data}.${createHmac('sha256', stateKey).update(data).digest('base64url')}`;
};
const verifyState = (raw: string | undefined): Record<string, unknown> | undefined => {
  if (raw === undefined) return undefined;
  const [data = '', mac = ''] = raw.split('.');
  if (createHmac('sha256', stateKey).update(data).digest('base64url') !== mac) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'requestState failed its integrity check; start the call again without it',
    );
  }
  return JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as Record<string, unknown>;
};
const stateOf = (call: ExtensionCall) => verifyState(call.ctx.mcpReq.requestState<string>());
const responsesOf = (call: ExtensionCall) => call.ctx.mcpReq.inputResponses;
const clientCapabilities = (call: ExtensionCall) =>
  (call.ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ] as Record<string, unknown> | undefined;

/** A server-to-client request of the 2025 revision; its failure is reported as text. */
const pushRequest = async (what: string, request: () => Promise<string>) => {
  try {
    return text(await request());
  } catch (error) {
    return text(`${what} not supported or failed: ${(error as Error).message}`);
  }
};

const elicitationTool = (name: string, message: string, properties: Record<string, unknown>) =>
  tool(name, `Elicits a form (${name})`, (_args, call) =>
    pushRequest('Elicitation', async () => {
      const result = await call.ctx.mcpReq.elicitInput({
        message,
        requestedSchema: { type: 'object', properties, required: [] },
      } as ElicitRequestFormParams);
      return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    }),
  );

const contentTools: ExtensionTool[] = [
  tool('test_simple_text', 'Answers one text block', () =>
    Promise.resolve(text('This is a simple text response for testing.')),
  ),
  tool('test_image_content', 'Answers one image block', () =>
    Promise.resolve({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }),
  ),
  tool('test_audio_content', 'Answers one audio block', () =>
    Promise.resolve({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }),
  ),
  tool('test_embedded_resource', 'Answers an embedded resource', () =>
    Promise.resolve({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  ),
  tool('test_multiple_content_types', 'Answers text, an image and a resource', () =>
    Promise.resolve({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  ),
  tool(
    'test_custom_headers',
    'Mirrors its region argument in the Mcp-Param-Region header',
    (args) => Promise.resolve(text(`region ${String(args?.region)}`)),
    {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      required: ['region'],
    },
  ),
  tool('test_error_handling', 'Always fails as a tool error', () =>
    Promise.resolve({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    }),
  ),
  tool(
    'json_schema_2020_12_tool',
    'Lists an input schema with JSON Schema 2020-12 keywords',
    (args) => Promise.resolve(text(`called with ${JSON.stringify(args ?? {})}`)),
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  ),
];

const notifyingTools: ExtensionTool[] = [
  tool('test_tool_with_logging', 'Logs three messages while it runs', async (_args, call) => {
    for (const message of [
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]) {
      await call.ctx.mcpReq.log('info', message, 'conformance');
      await sleep(20);
    }
    return text('Tool with logging executed successfully');
  }),
  tool('test_tool_with_progress', 'Reports progress 0, 50, 100', async (_args, call) => {
    const progressToken = call.ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined) {
        await call.ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `step ${String(progress)}` },
        });
      }
      await sleep(20);
    }
    return text(String(progressToken ?? 'no progress token'));
  }),
  tool('test_reconnection', 'Closes its SSE stream mid-call', async (_args, call) => {
    call.ctx.http?.closeSSE?.();
    await sleep(100);
    return text('Reconnection test completed successfully.');
  }),
  tool('test_logging_tool', 'Logs only when the request asked for a level', async (_args, call) => {
    // 2026-07-28: a server logs only at the level the request's _meta names (ctx.mcpReq.log
    // respects it); without one, nothing is sent.
    await call.ctx.mcpReq.log('info', 'Diagnostic trace', 'conformance');
    return text('Logging evaluated');
  }),
];

const samplingTool = tool(
  'test_sampling',
  'Asks the client for a completion',
  (args, call) =>
    pushRequest('Sampling', async () => {
      const prompt = typeof args?.prompt === 'string' ? args.prompt : '';
      const result = await call.ctx.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return `LLM response: ${content?.type === 'text' ? content.text : 'No response'}`;
    }),
  {
    type: 'object',
    properties: { prompt: { type: 'string', description: 'The prompt' } },
    required: ['prompt'],
  },
);

const pushTools: ExtensionTool[] = [
  samplingTool,
  tool(
    'test_elicitation',
    'Asks the user for a response',
    (args, call) =>
      pushRequest('Elicitation', async () => {
        const result = await call.ctx.mcpReq.elicitInput({
          message: typeof args?.message === 'string' ? args.message : 'Please respond',
          requestedSchema: {
            type: 'object',
            properties: { response: { type: 'string', description: "User's response" } },
            required: ['response'],
          },
        });
        return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
      }),
    { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  ),
  elicitationTool('test_elicitation_sep1034_defaults', 'Review the defaults', {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  }),
  elicitationTool('test_elicitation_sep1330_enums', 'Pick from the enums', {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  }),
];

/** 2026-07-28 multi-round-trip input (`input_required` results), one fixture per scenario. */
const inputRequiredTools: ExtensionTool[] = [
  tool('test_missing_capability', 'Needs the client to declare sampling', (_args, call) => {
    if (!clientCapabilities(call)?.sampling)
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
    return Promise.resolve(text('Success'));
  }),
  tool('test_input_required_result_elicitation', 'Asks a name first', (_args, call) => {
    const name = elicited(responsesOf(call), 'user_name', 'name');
    return Promise.resolve(
      name !== undefined
        ? text(`Hello, ${name}!`)
        : inputRequired({ inputRequests: { user_name: elicit('What is your name?', 'name') } }),
    );
  }),
  tool('test_input_required_result_sampling', 'Asks for a completion first', (_args, call) => {
    const answer = responsesOf(call)?.sample_request as
      { content?: { text?: unknown } } | undefined;
    const reply = answer?.content?.text;
    return Promise.resolve(
      answer
        ? text(`Sampling result: ${typeof reply === 'string' ? reply : 'no response'}`)
        : inputRequired({
            inputRequests: { sample_request: sample('What is the capital of France?', 100) },
          }),
    );
  }),
  tool('test_input_required_result_list_roots', 'Asks for the roots first', (_args, call) => {
    const answer = responsesOf(call)?.roots_request as { roots?: unknown } | undefined;
    return Promise.resolve(
      answer
        ? text(`Found ${String(Array.isArray(answer.roots) ? answer.roots.length : 0)} root(s)`)
        : inputRequired({ inputRequests: { roots_request: inputRequired.listRoots() } }),
    );
  }),
  tool('test_input_required_result_request_state', 'Keeps state across rounds', (_args, call) => {
    const state = stateOf(call);
    const confirm = responsesOf(call)?.confirm as { content?: { ok?: unknown } } | undefined;
    if (state?.kind === 'request-state' && confirm?.content?.ok === true)
      return Promise.resolve(text('state-ok: requestState validated'));
    return Promise.resolve(
      inputRequired({
        inputRequests: { confirm: elicit('Please confirm', 'ok', 'boolean') },
        requestState: signState({ kind: 'request-state' }),
      }),
    );
  }),
  tool('test_input_required_result_multiple_inputs', 'Asks three things at once', (_a, call) => {
    const responses = responsesOf(call);
    if (
      stateOf(call)?.kind === 'multiple-inputs' &&
      responses?.user_name &&
      responses.greeting &&
      responses.client_roots
    ) {
      const greeting = (responses.greeting as { content?: { text?: unknown } }).content?.text;
      const roots = (responses.client_roots as { roots?: unknown }).roots;
      return Promise.resolve(
        text(
          `Name: ${elicited(responses, 'user_name', 'name') ?? 'unknown'}; Greeting: ${typeof greeting === 'string' ? greeting : ''}; Roots: ${String(Array.isArray(roots) ? roots.length : 0)}`,
        ),
      );
    }
    return Promise.resolve(
      inputRequired({
        inputRequests: {
          user_name: elicit('What is your name?', 'name'),
          greeting: sample('Generate a greeting', 50),
          client_roots: inputRequired.listRoots(),
        },
        requestState: signState({ kind: 'multiple-inputs' }),
      }),
    );
  }),
  tool('test_input_required_result_multi_round', 'Asks in two rounds', (_args, call) => {
    const state = stateOf(call);
    const responses = responsesOf(call);
    const step1 = elicited(responses, 'step1', 'name');
    if (state?.round === 1 && step1 !== undefined) {
      return Promise.resolve(
        inputRequired({
          inputRequests: { step2: elicit('Step 2: What is your favorite color?', 'color') },
          requestState: signState({ round: 2, name: step1 }),
        }),
      );
    }
    const color = elicited(responses, 'step2', 'color');
    if (state?.round === 2 && color !== undefined)
      return Promise.resolve(
        text(`Multi-round complete for ${String(state.name)} who likes ${color}`),
      );
    return Promise.resolve(
      inputRequired({
        inputRequests: { step1: elicit('Step 1: What is your name?', 'name') },
        requestState: signState({ round: 1 }),
      }),
    );
  }),
  tool('test_input_required_result_tampered_state', 'Refuses altered state', (_args, call) => {
    if (stateOf(call)?.kind === 'tamper-test' && responsesOf(call)?.confirm)
      return Promise.resolve(text('integrity-ok: state verified'));
    return Promise.resolve(
      inputRequired({
        inputRequests: { confirm: elicit('Please confirm', 'ok', 'boolean') },
        requestState: signState({ kind: 'tamper-test' }),
      }),
    );
  }),
  tool('test_input_required_result_capabilities', 'Asks only what the client can', (_a, call) => {
    const responses = responsesOf(call);
    if (responses && Object.keys(responses).length > 0)
      return Promise.resolve(text(`capabilities-ok: received ${Object.keys(responses).join(',')}`));
    const capabilities = clientCapabilities(call);
    const inputRequests = {
      ...(capabilities?.elicitation ? { elicit_input: elicit('Elicitation input', 'value') } : {}),
      ...(capabilities?.sampling ? { sample_input: sample('Sample request', 50) } : {}),
    };
    return Promise.resolve(
      Object.keys(inputRequests).length === 0
        ? text('No supported capabilities declared')
        : inputRequired({ inputRequests, requestState: signState({ kind: 'capabilities' }) }),
    );
  }),
  tool('test_streaming_elicitation', 'Streams progress before its result', async (_a, call) => {
    const progressToken = call.ctx.mcpReq._meta?.progressToken ?? 'streaming';
    await call.ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken, progress: 50, total: 100 },
    });
    return text('Streaming complete');
  }),
];

const prompts: ExtensionPrompt[] = [
  {
    entry: { name: 'test_simple_prompt', description: 'A prompt without arguments' },
    get: () =>
      Promise.resolve({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: 'This is a simple prompt for testing.' },
          },
        ],
      }),
  },
  {
    entry: {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    get: (args) =>
      Promise.resolve({
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Prompt with arguments: arg1='${args?.arg1 ?? ''}', arg2='${args?.arg2 ?? ''}'`,
            },
          },
        ],
      }),
  },
  {
    entry: {
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt embedding a resource',
      arguments: [{ name: 'resourceUri', description: 'URI to embed', required: true }],
    },
    get: (args) =>
      Promise.resolve({
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: args?.resourceUri ?? 'test://example-resource',
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          {
            role: 'user',
            content: { type: 'text', text: 'Please process the embedded resource above.' },
          },
        ],
      }),
  },
  {
    entry: { name: 'test_prompt_with_image', description: 'A prompt with an image' },
    get: () =>
      Promise.resolve({
        messages: [
          { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      }),
  },
  {
    entry: { name: 'test_input_required_result_prompt', description: 'Asks for context first' },
    get: (_args, call) => {
      const context = elicited(responsesOf(call), 'user_context', 'context');
      return Promise.resolve(
        context !== undefined
          ? { messages: [{ role: 'user', content: { type: 'text', text: `Context: ${context}` } }] }
          : inputRequired({
              inputRequests: { user_context: elicit('What context should it use?', 'context') },
            }),
      );
    },
  },
];

const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

const read = (uri: string) => {
  if (uri === 'test://static-text')
    return { contents: [{ uri, mimeType: 'text/plain', text: 'This is static text content.' }] };
  if (uri === 'test://static-binary')
    return { contents: [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }] };
  if (uri === 'test://watched-resource')
    return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] };
  const id = TEMPLATE.exec(uri)?.[1];
  if (id !== undefined) {
    const data = { id, templateTest: true, data: `Data for ID: ${id}` };
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
  }
  return undefined;
};

export const conformanceFixtures: GatewayExtension = {
  tools: [...contentTools, ...notifyingTools, ...pushTools, ...inputRequiredTools],
  prompts,
  resources: [
    { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
    { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' },
    { uri: 'test://watched-resource', name: 'watched-resource', mimeType: 'text/plain' },
  ],
  resourceTemplates: [
    { uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' },
  ],
  read: (uri) => {
    const contents = read(uri);
    return contents === undefined ? undefined : Promise.resolve(contents);
  },
};
