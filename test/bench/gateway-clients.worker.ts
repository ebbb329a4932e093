import { parentPort } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * bench:gateway's clients, on a worker thread of their own: v1 SDK clients over real HTTP in
 * closed loops, timing each call from send to answer. The gateways under test keep the main
 * thread's event loop to themselves, as a server does whose clients are other processes; the
 * thread still shares the process and the machine's cores with them.
 *
 * Messages (`ClientRequest` in, `ClientReply` out, one reply per request, in order).
 */

/** The arguments of call `call` of client `client` for a workload. */
export type Workload =
  | { readonly kind: 'echo' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'get_request'; readonly requestId: string }
  | { readonly kind: 'intake' };

export type ClientRequest =
  | {
      readonly type: 'connect';
      readonly pool: string;
      readonly url: string;
      readonly count: number;
    }
  | {
      readonly type: 'call';
      readonly pool: string;
      readonly name: string;
      readonly workload: Workload;
      readonly client: number;
      readonly call: number;
    }
  | {
      readonly type: 'run';
      readonly pool: string;
      readonly clients: number;
      readonly name: string;
      readonly workload: Workload;
      readonly seconds: number;
    }
  | { readonly type: 'close' };

export interface RunReply {
  readonly latencies: number[];
  readonly seconds: number;
  readonly errors: number;
  /** Answers without isError, warm-up calls included. */
  readonly answered: number;
}

export type ClientReply =
  | { readonly type: 'ok' }
  | { readonly type: 'result'; readonly result: Record<string, unknown> }
  | ({ readonly type: 'run' } & RunReply)
  | { readonly type: 'error'; readonly message: string };

export const intakeArgs = (client: number, call: number) => ({
  title: `Bench request ${String(client)}-${String(call)}`,
  problem: 'Auditors copy history by hand today, which takes hours per request and loses rows.',
  product: 'bench',
  requester: 'bench-team',
  acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
});

export const argumentsOf = (
  workload: Workload,
  client: number,
  call: number,
): Record<string, unknown> => {
  switch (workload.kind) {
    case 'echo':
      return { text: `hello ${String(client)} ${String(call)}` };
    case 'empty':
      return {};
    case 'get_request':
      return { request_id: workload.requestId };
    case 'intake':
      return intakeArgs(client, call);
  }
};

const pools = new Map<string, Client[]>();

const poolOf = (name: string): Client[] => {
  const pool = pools.get(name);
  if (!pool) throw new Error(`no client pool ${name}`);
  return pool;
};

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
};

/** Warm-up (one untimed call per client), then closed loops for `seconds`. */
const run = async (
  clients: readonly Client[],
  name: string,
  workload: Workload,
  seconds: number,
): Promise<RunReply> => {
  const latencies: number[] = [];
  let errors = 0;
  let answered = 0;
  const count = (result: Record<string, unknown>): void => {
    if (result.isError === true) errors += 1;
    else answered += 1;
  };
  await Promise.all(
    clients.map(async (client, index) => {
      count(await client.callTool({ name, arguments: argumentsOf(workload, index, -1) }));
    }),
  );
  errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    clients.map(async (client, index) => {
      for (let call = 0; performance.now() < deadline; call += 1) {
        const t0 = performance.now();
        const result = await client.callTool({
          name,
          arguments: argumentsOf(workload, index, call),
        });
        latencies.push(performance.now() - t0);
        count(result);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, errors, answered };
};

const handle = async (request: ClientRequest): Promise<ClientReply> => {
  switch (request.type) {
    case 'connect': {
      const clients = await Promise.all(
        Array.from({ length: request.count }, () => connect(request.url)),
      );
      pools.set(request.pool, [...(pools.get(request.pool) ?? []), ...clients]);
      return { type: 'ok' };
    }
    case 'call': {
      const client = poolOf(request.pool)[request.client];
      if (!client) throw new Error(`no client ${String(request.client)} in ${request.pool}`);
      const result = await client.callTool({
        name: request.name,
        arguments: argumentsOf(request.workload, request.client, request.call),
      });
      return { type: 'result', result };
    }
    case 'run':
      return {
        type: 'run',
        ...(await run(
          poolOf(request.pool).slice(0, request.clients),
          request.name,
          request.workload,
          request.seconds,
        )),
      };
    case 'close':
      await Promise.all([...pools.values()].flat().map((client) => client.close()));
      pools.clear();
      return { type: 'ok' };
  }
};

const port = parentPort;
if (port) {
  // One request at a time, in order: the bench awaits each reply before the next request.
  let queue = Promise.resolve();
  port.on('message', (request: ClientRequest) => {
    queue = queue.then(async () => {
      try {
        port.postMessage(await handle(request));
      } catch (error) {
        port.postMessage({ type: 'error', message: (error as Error).message });
      }
    });
  });
}
