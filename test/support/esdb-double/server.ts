import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Server,
  ServerCredentials,
  status as Status,
  type Metadata,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { rpcError, toUuid, type RpcError } from './codec.js';
import type {
  DoubleContext,
  EsdbDoubleOptions,
  LiveSubscription,
  Violation,
  ViolationKind,
} from './context.js';
import { FaultController } from './faults.js';
import { EsdbLog } from './log.js';
import {
  gossip,
  gossipGrpc,
  serverFeatures,
  serverFeaturesGrpc,
  streamsGrpc,
  type ClusterInfo,
  type GossipServer,
  type ServerFeaturesServer,
  type StreamsServer,
  type SupportedMethods,
} from './proto.js';
import { Problem } from './requests.js';
import { ReadHandlers } from './reads.js';
import { WriteHandlers } from './writes.js';

export type { EsdbDoubleOptions, Violation, ViolationKind } from './context.js';

export class EsdbDouble implements DoubleContext {
  readonly log: EsdbLog;
  readonly faults = new FaultController();
  private server: Server | undefined;
  private boundPort = 0;
  private cut = 0;
  private readonly violationList: Violation[] = [];
  private readonly callCounts = new Map<string, number>();
  readonly live = new Set<LiveSubscription>();
  private readonly host: string;
  readonly options: EsdbDoubleOptions;
  private readonly reads = new ReadHandlers(this);
  private readonly writes = new WriteHandlers(this);
  private readonly instanceId = randomUUID();

  private constructor(options: EsdbDoubleOptions) {
    this.options = options;
    this.host = options.host ?? '127.0.0.1';
    this.log = options.log instanceof EsdbLog ? options.log : new EsdbLog(options.log);
  }

  static async start(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
    const double = new EsdbDouble(options);
    await double.listen(0);
    return double;
  }

  /** The connection string of this node (`esdb://host:port?tls=false` when insecure). */
  get url(): string {
    return `esdb://${this.address}?tls=${this.options.tls ? 'true' : 'false'}`;
  }

  get address(): string {
    return `${this.host}:${this.boundPort}`;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Subscriptions that `stop()` (or `restart()`) ended while they were being served. */
  get subscriptionsCut(): number {
    return this.cut;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  get violations(): readonly Violation[] {
    return this.violationList;
  }

  /** Calls received, by `Service.Method`. */
  get calls(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.callCounts);
  }

  /**
   * Stops serving as a crashed or restarted node does: every call and connection ends at once
   * (status UNAVAILABLE or a reset connection on the client side). The log stays.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.cut += this.live.size;
    for (const subscription of this.live) subscription.abort.abort();
    this.live.clear();
    server.forceShutdown();
    await Promise.resolve();
  }

  /** Serves again on the same port, with the same log. */
  async resume(): Promise<void> {
    if (this.server) return;
    await this.listen(this.boundPort);
  }

  /** `stop()`, wait `downMs`, `resume()`. */
  async restart(downMs = 0): Promise<void> {
    await this.stop();
    if (downMs > 0) await sleep(downMs);
    await this.resume();
  }

  /** Ends every live subscription with `code` (default UNAVAILABLE), as a dropped subscription. */
  dropSubscriptions(code: Status = Status.UNAVAILABLE): number {
    const dropped = [...this.live];
    for (const subscription of dropped) {
      subscription.abort.abort();
      this.live.delete(subscription);
      subscription.call.emit('error', rpcError(code, 'Subscription dropped by the server'));
    }
    return dropped.length;
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private async listen(port: number): Promise<void> {
    const server = new Server();
    const streamsService: StreamsServer = {
      read: (call) => void this.reads.serve(call),
      append: (call, done) => {
        this.writes.append(call, done);
      },
      delete: (call, done) => {
        this.writes.softDelete(call, done);
      },
      tombstone: (call, done) => {
        this.writes.tombstone(call, done);
      },
      batchAppend: (call) => {
        this.writes.batchAppend(call);
      },
    };
    const features: ServerFeaturesServer = {
      getSupportedMethods: (call, done) => {
        this.enter('ServerFeatures.GetSupportedMethods', call.metadata);
        this.supportedMethods(done);
      },
    };
    const discovery: GossipServer = {
      read: (call, done) => {
        this.enter('Gossip.Read', call.metadata);
        done(null, this.clusterInfo());
      },
    };
    server.addService(streamsGrpc.StreamsService, streamsService);
    server.addService(serverFeaturesGrpc.ServerFeaturesService, features);
    server.addService(gossipGrpc.GossipService, discovery);
    const credentials = this.options.tls
      ? ServerCredentials.createSsl(
          null,
          [{ private_key: this.options.tls.key, cert_chain: this.options.tls.cert }],
          false,
        )
      : ServerCredentials.createInsecure();
    this.boundPort = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${this.host}:${port}`, credentials, (error, bound) => {
        if (error) reject(error);
        else resolve(bound);
      });
    });
    this.server = server;
  }

  // -------------------------------------------------------------------------------------------
  // Bookkeeping

  violation(rpc: string, kind: ViolationKind, reason: string): void {
    this.violationList.push({ rpc, kind, reason });
  }

  /**
   * Counts the call and checks what every client call carries: the client names its
   * connection (`connection-name`) on every call, and sends credentials only over TLS (it
   * drops them on an insecure channel).
   */
  enter(rpc: string, metadata: Metadata): void {
    this.callCounts.set(rpc, (this.callCounts.get(rpc) ?? 0) + 1);
    // Discovery and feature negotiation go through bare calls without call metadata.
    if (rpc === 'Gossip.Read' || rpc === 'ServerFeatures.GetSupportedMethods') return;
    if (metadata.get('connection-name').length === 0) {
      this.violation(rpc, 'metadata', 'no connection-name header');
    }
    if (!this.options.tls && metadata.get('authorization').length > 0) {
      this.violation(rpc, 'metadata', 'credentials sent over an insecure channel');
    }
  }

  failure(rpc: string, error: unknown): RpcError {
    if (error instanceof Problem) {
      this.violation(rpc, 'request', error.reason);
      return rpcError(Status.INVALID_ARGUMENT, error.reason);
    }
    const reason = error instanceof Error ? error.message : String(error);
    this.violation(rpc, 'internal', reason);
    return rpcError(Status.INTERNAL, `EventStoreDB double failed: ${reason}`);
  }

  // -------------------------------------------------------------------------------------------
  // ServerFeatures and Gossip

  private supportedMethods(done: sendUnaryData<SupportedMethods>): void {
    const features = this.options.features ?? 'current';
    if (features === 'none') {
      done(rpcError(Status.UNIMPLEMENTED, 'Method not found: GetSupportedMethods'));
      return;
    }
    const method = (service: string, name: string, flags: string[] = []) =>
      new serverFeatures.SupportedMethod()
        .setServiceName(service)
        .setMethodName(name)
        .setFeaturesList(flags);
    const streamsService = 'event_store.client.streams.streams';
    const methods = [
      method(streamsService, 'read', ['position', 'events']),
      method(streamsService, 'append'),
      method(streamsService, 'delete'),
      method(streamsService, 'tombstone'),
      ...(features === 'current'
        ? [method(streamsService, 'batchappend', ['deadline_duration'])]
        : []),
      method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
      method('event_store.client.gossip.gossip', 'read'),
    ];
    done(
      null,
      new serverFeatures.SupportedMethods()
        .setMethodsList(methods)
        .setEventStoreServerVersion(this.options.serverVersion ?? '24.10.0'),
    );
  }

  /** One member, alive and leader, reachable where this node listens. */
  private clusterInfo(): ClusterInfo {
    const member = new gossip.MemberInfo()
      .setInstanceId(toUuid(this.instanceId, false))
      .setTimeStamp(String(BigInt(Date.now()) * 10_000n))
      .setState(gossip.MemberInfo.VNodeState.LEADER)
      .setIsAlive(true)
      .setHttpEndPoint(new gossip.EndPoint().setAddress(this.host).setPort(this.boundPort));
    return new gossip.ClusterInfo().setMembersList([member]);
  }
}
