import { CogitaveError, NotFound } from '../runtime/errors.js';

/**
 * The typed errors of the Network commands and queries. Messages name the network and node
 * and say what to call instead, because the usual reader is an agent deciding its next call.
 */

export class NetworkNotFound extends NotFound {
  readonly networkName: string;
  constructor(networkName: string) {
    super(
      `Network "${networkName}" does not exist: create it with network_create, or find its name with network_list.`,
      { networkName },
    );
    this.networkName = networkName;
  }
}

export class NodeNotFound extends NotFound {
  constructor(networkName: string, nodeIds: readonly string[]) {
    const list = nodeIds.map((id) => `"${id}"`).join(' and ');
    super(
      `Network "${networkName}" has no node ${list}: add ${nodeIds.length > 1 ? 'them' : 'it'} with network_add_node first.`,
      { networkName, nodeIds },
    );
  }
}

/** A per-network bound (nodes, edges) would be exceeded; nothing was appended. */
export class NetworkLimitReached extends CogitaveError {
  constructor(networkName: string, what: 'nodes' | 'edges', limit: number) {
    super(
      'FAILED_PRECONDITION',
      `Network "${networkName}" already holds the most ${what} a network may have (${limit}); create another network for the rest.`,
      { networkName, what, limit },
    );
  }
}

/** Other writers kept changing the network while this command was decided; nothing appended. */
export class NetworkBusy extends CogitaveError {
  constructor(networkName: string, attempts: number, options?: ErrorOptions) {
    super(
      'UNAVAILABLE',
      `Network "${networkName}" changed on every one of ${attempts} attempts (many concurrent writers); nothing was written, retry the call.`,
      { networkName, attempts },
      options,
    );
  }
}
