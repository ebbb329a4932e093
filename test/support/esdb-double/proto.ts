/**
 * The EventStoreDB gRPC API as the official client ships it: the service definitions and
 * message classes generated from EventStoreDB's own .proto files
 * (`@eventstore/db-client/generated/*`). The double serves exactly these definitions, so a
 * request the client can send and an answer the double can give are what the real API allows.
 *
 * The generated files are CommonJS that attach their exports through Closure's
 * `goog.object.extend`, which Node's ESM loader cannot see; they are loaded with `require`.
 * `google-protobuf` is resolved from the client's own package, so the well-known types here are
 * the very instances the generated code uses.
 */
import { createRequire } from 'node:module';

import type * as GossipGrpc from '@eventstore/db-client/generated/gossip_grpc_pb.js';
import type * as GossipPb from '@eventstore/db-client/generated/gossip_pb.js';
import type * as ServerFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as ServerFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as CodePb from '@eventstore/db-client/generated/code_pb.js';
import type * as SharedPb from '@eventstore/db-client/generated/shared_pb.js';
import type * as StatusPb from '@eventstore/db-client/generated/status_pb.js';
import type * as StreamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as StreamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as AnyPb from 'google-protobuf/google/protobuf/any_pb.js';
import type * as EmptyPb from 'google-protobuf/google/protobuf/empty_pb.js';

const load = createRequire(import.meta.url);
const fromClient = createRequire(load.resolve('@eventstore/db-client/package.json'));

export const streamsGrpc = load(
  '@eventstore/db-client/generated/streams_grpc_pb.js',
) as typeof StreamsGrpc;
export const streams = load('@eventstore/db-client/generated/streams_pb.js') as typeof StreamsPb;
export const shared = load('@eventstore/db-client/generated/shared_pb.js') as typeof SharedPb;
export const code = load('@eventstore/db-client/generated/code_pb.js') as typeof CodePb;
export const status = load('@eventstore/db-client/generated/status_pb.js') as typeof StatusPb;
export const gossipGrpc = load(
  '@eventstore/db-client/generated/gossip_grpc_pb.js',
) as typeof GossipGrpc;
export const gossip = load('@eventstore/db-client/generated/gossip_pb.js') as typeof GossipPb;
export const serverFeaturesGrpc = load(
  '@eventstore/db-client/generated/serverfeatures_grpc_pb.js',
) as typeof ServerFeaturesGrpc;
export const serverFeatures = load(
  '@eventstore/db-client/generated/serverfeatures_pb.js',
) as typeof ServerFeaturesPb;
export const anyPb = fromClient('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPb;
export const emptyPb = fromClient('google-protobuf/google/protobuf/empty_pb.js') as typeof EmptyPb;

export type ReadReq = StreamsPb.ReadReq;
export type ReadResp = StreamsPb.ReadResp;
export type AppendReq = StreamsPb.AppendReq;
export type AppendResp = StreamsPb.AppendResp;
export type AppendProposedMessage = StreamsPb.AppendReq.ProposedMessage;
export type BatchProposedMessage = StreamsPb.BatchAppendReq.ProposedMessage;
export type BatchAppendReq = StreamsPb.BatchAppendReq;
export type BatchAppendResp = StreamsPb.BatchAppendResp;
export type DeleteReq = StreamsPb.DeleteReq;
export type DeleteResp = StreamsPb.DeleteResp;
export type TombstoneReq = StreamsPb.TombstoneReq;
export type TombstoneResp = StreamsPb.TombstoneResp;
export type Uuid = SharedPb.UUID;
export type StreamsServer = StreamsGrpc.IStreamsServer;
export type SupportedMethods = ServerFeaturesPb.SupportedMethods;
export type ClusterInfo = GossipPb.ClusterInfo;
export type GossipServer = GossipGrpc.IGossipServer;
export type ServerFeaturesServer = ServerFeaturesGrpc.IServerFeaturesServer;
