import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, expect } from 'vitest';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import {
  httpSettingsFromConfig,
  startHttpServer,
  type RunningHttpServer,
} from '../../../mcp-gateway/http/server.js';
import type { Position } from '../../../services/event-store/types.js';
import type { PrincipalTableInput } from '../../../services/principals/principals.js';
import type { GitHubReactorStatus } from '../../../services/github/reactor.js';
import { WEBHOOK_PATH, createWebhookReceiver } from '../../../services/github/webhooks.js';
import { loadConfig, Secret } from '../../../services/runtime/config.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  openHarness,
  proposeAcceptance,
  proposeIntake,
  reactorCaughtUp,
  requestEvents,
  silentLogger,
  type Harness,
} from './harness.js';

/**
 * The webhook receiver behind the real HTTP server, fed the real example payloads of
 * @octokit/webhooks-examples, patched to the double's repository and objects (both
 * `pull_request.closed` examples have `merged: false`, and there is no `issues.closed`
 * example, so an `issues` example is patched to it) and signed like GitHub signs them.
 */
/**
 * The principal table of the governance tests: octocat's MCP token linked to octocat's login,
 * grace the only maintainer besides octocat, an intern who is none.
 */
export const PRINCIPALS: PrincipalTableInput = {
  octocat: { tokens: ['octocat-agent'], github: ['octocat'], maintainer: true },
  grace: { github: ['grace', 'grace-hopper'], maintainer: true },
  intern: { github: ['intern-bot'] },
};

export const SECRET = 'webhook-secret-for-tests';
export const signer = new Webhooks({ secret: SECRET });
const examples = createRequire(import.meta.url)(
  '@octokit/webhooks-examples',
) as WebhookDefinition[];

export type Json = Record<string, unknown>;

/** The push example of a branch with a commit (the others are tag pushes without commits). */
const pushExample = (): Json => {
  const found = examples
    .find((definition) => definition.name === 'push')
    ?.examples.find((payload) => ((payload as { commits?: unknown[] }).commits ?? []).length > 0);
  if (!found) throw new Error('no push example with a commit in @octokit/webhooks-examples');
  return structuredClone(found) as Json;
};

export const example = (name: string, action?: string): Json => {
  const definition = examples.find((candidate) => candidate.name === name);
  const found = definition?.examples.find(
    (payload) => action === undefined || (payload as { action?: string }).action === action,
  );
  if (!found) throw new Error(`no ${name}.${action ?? ''} example in @octokit/webhooks-examples`);
  return structuredClone(found) as Json;
};

export interface Delivered {
  readonly status: number;
  readonly body: Json;
}

export interface WebhookWorld {
  readonly h: Harness;
  readonly server: RunningHttpServer;
  readonly deliver: (
    name: string,
    payload: Json,
    options?: { id?: string; signature?: string | null },
  ) => Promise<Delivered>;
  /** The newest position of the whole log: unchanged means nothing was appended anywhere. */
  readonly head: () => Promise<Position | undefined>;
  readonly repositoryJson: () => Json;
  /** `pull_request.<action>` for a pull request of the double, as GitHub would send it. */
  readonly pullPayload: (number: number, sender: string, action?: string) => Json;
  readonly issueClosedPayload: (number: number, sender: string) => Json;
  /**
   * `push` of one commit `after` to `branch` (default: the base branch) changing `files`, from
   * the push example with a commit (the others are tag pushes without commits).
   */
  readonly pushPayload: (
    after: string,
    sender: string,
    files: { modified?: string[]; removed?: string[] },
    branch?: string,
  ) => Json;
  /** `delete` of a branch. */
  readonly deletePayload: (branch: string, sender: string) => Json;
  /** A request with an intake issue and a draft pull request, opened by the reactor. */
  readonly proposalWithPull: (
    n: number,
    proposer?: string,
  ) => Promise<{ requestId: string; proposalId: string; issue: number; pull: number }>;
  /** Runs the reactor until it has caught up, then stops it; it must record no failure. */
  readonly runReactor: () => Promise<void>;
  /**
   * A reactor under a new checkpoint name handles the whole log again, as after a lost
   * checkpoint; answers its status once caught up.
   */
  readonly rerunReactorFromStart: (name: string) => Promise<GitHubReactorStatus>;
  close(): Promise<void>;
}

export const openWebhookWorld = async (
  label: string,
  options: { readonly principals?: PrincipalTableInput } = {},
): Promise<WebhookWorld> => {
  const h = await openHarness(label, options);
  const receiver = createWebhookReceiver({
    secret: new Secret(SECRET),
    repository: REPOSITORY,
    eventStore: h.eventStore,
    handlers: h.handlers,
    governance: h.governance,
    logger: silentLogger,
  });
  const server = await startHttpServer({
    ...httpSettingsFromConfig(loadConfig({ COGITAVE_HTTP_PORT: '0' })),
    logger: silentLogger,
    readiness: [],
    routes: [receiver.route],
  });

  const repositoryJson = (): Json => ({
    ...(example('pull_request', 'closed').repository as Json),
    ...(h.double.getRepository(OWNER, REPO) as unknown as Json),
  });

  return {
    h,
    server,
    repositoryJson,
    deliver: async (name, payload, deliverOptions = {}) => {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-github-event': name,
        'x-github-delivery': deliverOptions.id ?? randomUUID(),
        'user-agent': 'GitHub-Hookshot/test',
      };
      const signature =
        deliverOptions.signature === undefined ? await signer.sign(body) : deliverOptions.signature;
      if (signature !== null) headers['x-hub-signature-256'] = signature;
      const response = await fetch(`${server.url}${WEBHOOK_PATH}`, {
        method: 'POST',
        headers,
        body,
      });
      return { status: response.status, body: (await response.json()) as Json };
    },
    head: async () =>
      (await h.eventStore.readAll({ direction: 'backwards', maxCount: 1 }))[0]?.position,
    pullPayload: (number, sender, action = 'closed') => {
      const payload = example('pull_request', 'closed');
      const pull = h.double.getPullRequest(OWNER, REPO, number) as unknown as Json;
      return {
        ...payload,
        action,
        number,
        pull_request: { ...(payload.pull_request as Json), ...pull },
        repository: repositoryJson(),
        sender: h.double.user(sender),
      };
    },
    issueClosedPayload: (number, sender) => {
      const payload = example('issues', 'opened');
      const issue = h.double.getIssue(OWNER, REPO, number) as unknown as Json;
      return {
        ...payload,
        action: 'closed',
        issue: { ...(payload.issue as Json), ...issue },
        repository: repositoryJson(),
        sender: h.double.user(sender),
      };
    },
    pushPayload: (after, sender, files, branch) => {
      const payload = pushExample();
      const commit = (payload.commits as Json[])[0] ?? {};
      const repository = repositoryJson();
      return {
        ...payload,
        ref: `refs/heads/${branch ?? String(repository.default_branch)}`,
        before: '0'.repeat(40),
        after,
        created: false,
        deleted: false,
        forced: false,
        pusher: { name: sender, email: `${sender}@users.noreply.github.com` },
        repository,
        sender: h.double.user(sender),
        commits: [
          {
            ...commit,
            id: after,
            added: [],
            modified: files.modified ?? [],
            removed: files.removed ?? [],
          },
        ],
      };
    },
    deletePayload: (branch, sender) => ({
      ...example('delete'),
      ref: branch,
      ref_type: 'branch',
      repository: repositoryJson(),
      sender: h.double.user(sender),
    }),
    proposalWithPull: async (n, proposer = 'agent:alpha') => {
      const requestId = await proposeIntake(h.handlers, n, proposer);
      const proposalId = await proposeAcceptance(h.handlers, requestId, proposer);
      const reactor = h.reactor(h.client());
      reactor.start();
      await reactorCaughtUp(h, reactor);
      await reactor.stop();
      const events = await requestEvents(h, requestId);
      const issue = events.find((e) => e.type === 'IntakeIssueOpened')?.data as {
        issueNumber: number;
      };
      const pull = events.find((e) => e.type === 'ProposalPullRequestOpened')?.data as {
        pullNumber: number;
      };
      return { requestId, proposalId, issue: issue.issueNumber, pull: pull.pullNumber };
    },
    runReactor: async () => {
      const reactor = h.reactor(h.client());
      reactor.start();
      await reactorCaughtUp(h, reactor);
      await reactor.stop();
      expect(reactor.status().failures).toEqual([]);
    },
    rerunReactorFromStart: async (name) => {
      const reactor = h.reactor(h.client(), { name });
      reactor.start();
      await reactorCaughtUp(h, reactor);
      await reactor.stop();
      return reactor.status();
    },
    close: async () => {
      await server.close();
      await h.close();
    },
  };
};

/** One world for a test file: opened before its tests, closed after them. */
export const webhookWorldForFile = (
  label: string,
  options: { readonly principals?: PrincipalTableInput } = {},
): { readonly world: () => WebhookWorld; readonly h: () => Harness } => {
  let world: WebhookWorld | undefined;
  beforeAll(async () => {
    world = await openWebhookWorld(label, options);
  });
  afterAll(async () => {
    await world?.close();
  });
  const opened = (): WebhookWorld => {
    if (!world) throw new Error('the webhook world is not open yet');
    return world;
  };
  return { world: opened, h: () => opened().h };
};
