import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Webhooks } from '@octokit/webhooks';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import type { GitHubDouble } from '../support/github-double/index.js';

/**
 * A maintainer on the GitHub double: merges or closes a proposal's pull request there, then
 * delivers the `pull_request.closed` webhook GitHub would send, signed with the webhook secret,
 * to a gateway's `/webhooks/github`. Payloads start from the real examples of
 * @octokit/webhooks-examples (whose `closed` examples are unmerged) patched with the double's
 * pull request, repository and sender.
 */
type Json = Record<string, unknown>;

const examples = createRequire(import.meta.url)(
  '@octokit/webhooks-examples',
) as WebhookDefinition[];

const closedExample = (): Json => {
  const found = examples
    .find((definition) => definition.name === 'pull_request')
    ?.examples.find((payload) => (payload as { action?: string }).action === 'closed');
  if (!found) throw new Error('no pull_request.closed example in @octokit/webhooks-examples');
  return structuredClone(found) as Json;
};

export interface Maintainer {
  /** Merges pull request `number` as `login` and delivers the webhook; returns its answer. */
  merge(number: number, login?: string): Promise<WebhookAnswer>;
  /** Closes pull request `number` unmerged as `login` and delivers the webhook. */
  close(number: number, login?: string): Promise<WebhookAnswer>;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: Json;
}

export interface MaintainerOptions {
  readonly double: GitHubDouble;
  readonly owner: string;
  readonly repo: string;
  readonly secret: string;
  /** Base URL of the gateway that receives the delivery (e.g. `http://127.0.0.1:3101`). */
  readonly gatewayUrl: () => string;
}

export const createMaintainer = (options: MaintainerOptions): Maintainer => {
  const { double, owner, repo } = options;
  const signer = new Webhooks({ secret: options.secret });

  const deliver = async (number: number, login: string): Promise<WebhookAnswer> => {
    const example = closedExample();
    const payload = {
      ...example,
      action: 'closed',
      number,
      pull_request: {
        ...(example.pull_request as Json),
        ...(double.getPullRequest(owner, repo, number) as unknown as Json),
      },
      repository: {
        ...(example.repository as Json),
        ...(double.getRepository(owner, repo) as unknown as Json),
      },
      sender: double.user(login),
    };
    const body = JSON.stringify(payload);
    const response = await fetch(`${options.gatewayUrl()}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/cogitave-topology',
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await signer.sign(body),
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as Json };
  };

  return {
    merge: async (number, login = 'maintainer') => {
      double.mergePullRequest(owner, repo, number, { mergedBy: login });
      return deliver(number, login);
    },
    close: async (number, login = 'maintainer') => {
      double.closePullRequest(owner, repo, number, { closedBy: login });
      return deliver(number, login);
    },
  };
};
