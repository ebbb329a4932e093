import { credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import {
  EventStoreDBClient,
  NO_STREAM,
  jsonEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestCertificate,
  startEsdbDouble,
  type EsdbDouble,
} from '../../support/esdb-double/index.js';
import { shared, streams, streamsGrpc } from '../../support/esdb-double/proto.js';

/**
 * How clients reach the double: connection-string forms (single node, gossip seeds, DNS
 * discovery), TLS, a restart of the node, and what happens to requests the API does not allow.
 */
const started: EsdbDouble[] = [];
const clients: EventStoreDBClient[] = [];

const start = async (...args: Parameters<typeof startEsdbDouble>): Promise<EsdbDouble> => {
  const double = await startEsdbDouble(...args);
  started.push(double);
  return double;
};
const connect = (connectionString: string): EventStoreDBClient => {
  const client = EventStoreDBClient.connectionString(connectionString);
  clients.push(client);
  return client;
};

afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
  for (const double of started.splice(0)) await double.close();
});

const roundTrip = async (client: EventStoreDBClient, stream: string): Promise<ResolvedEvent[]> => {
  await client.appendToStream(stream, jsonEvent({ type: 'Pinged', data: {} }), {
    expectedRevision: NO_STREAM,
  });
  const read: ResolvedEvent[] = [];
  for await (const event of client.readStream(stream)) read.push(event);
  return read;
};

describe('connecting', () => {
  it.each([
    ['a single node', (d: EsdbDouble) => d.url],
    ['gossip seeds (esdb://a,b)', (d: EsdbDouble) => `esdb://${d.address},${d.address}?tls=false`],
    [
      'DNS discovery (esdb+discover://)',
      (d: EsdbDouble) => `esdb+discover://${d.address}?tls=false`,
    ],
  ])(
    'given %s, when the client appends and reads, then it reaches the node',
    async (_label, form) => {
      const double = await start();
      const read = await roundTrip(connect(form(double)), 'ping-1');
      expect(read).toHaveLength(1);
      expect(double.violations).toEqual([]);
    },
  );

  it('given a node serving TLS, when the client trusts its certificate (tlsCAFile), then it connects; without tls=true it cannot', async (context) => {
    const certificate = createTestCertificate();
    if (!certificate) {
      context.skip('openssl is not installed (apt-get install openssl) to make a test certificate');
      return;
    }
    try {
      const double = await start({ tls: { key: certificate.key, cert: certificate.cert } });
      const secure = connect(
        `esdb://localhost:${double.port}?tls=true&tlsCAFile=${certificate.caFile}`,
      );
      expect(await roundTrip(secure, 'ping-tls')).toHaveLength(1);
      const plain = connect(`esdb://localhost:${double.port}?tls=false`);
      const error = await roundTrip(plain, 'ping-plain').catch((caught: unknown) => caught);
      // The client reports the failed handshake as the raw gRPC status.
      expect(error).toMatchObject({ code: Status.UNAVAILABLE });
    } finally {
      certificate.remove();
    }
  });

  it('given a node that restarts, when the client calls again, then it reconnects and every event written before is still there', async () => {
    const double = await start();
    const client = connect(double.url);
    await roundTrip(client, 'durable-1');
    await double.restart(200);
    await roundTrip(client, 'durable-2').catch(() => roundTrip(client, 'durable-2'));
    const streamsSeen = double.log
      .all()
      .filter((record) => record.streamId.startsWith('durable-'))
      .map((record) => record.streamId);
    expect(streamsSeen).toEqual(['durable-1', 'durable-2']);
  });
});

describe('requests the API does not allow', () => {
  const call = (double: EsdbDouble, request: InstanceType<typeof streams.ReadReq>) =>
    new Promise<ServiceError>((resolve, reject) => {
      const raw = new streamsGrpc.StreamsClient(double.address, credentials.createInsecure());
      const metadata = new Metadata();
      metadata.set('connection-name', 'raw-test');
      const stream = raw.read(request, metadata);
      stream.on('data', () => undefined);
      stream.on('error', (error: ServiceError) => {
        raw.close();
        resolve(error);
      });
      stream.on('end', () => {
        raw.close();
        reject(new Error('the read was accepted'));
      });
    });

  const streamRead = () =>
    new streams.ReadReq.Options()
      .setStream(
        new streams.ReadReq.Options.StreamOptions()
          .setStreamIdentifier(new shared.StreamIdentifier().setStreamName('any-stream'))
          .setStart(new shared.Empty()),
      )
      .setCount('10');

  it.each([
    [
      'without uuid_option',
      () => streamRead().setNoFilter(new shared.Empty()),
      /uuid_option is required/,
    ],
    [
      'with a filter on a stream read',
      () =>
        streamRead()
          .setUuidOption(new streams.ReadReq.Options.UUIDOption().setString(new shared.Empty()))
          .setFilter(new streams.ReadReq.Options.FilterOptions()),
      /combination .* is invalid/,
    ],
    [
      'with no filter option at all',
      () =>
        streamRead().setUuidOption(
          new streams.ReadReq.Options.UUIDOption().setString(new shared.Empty()),
        ),
      /neither filter nor no_filter/,
    ],
  ])(
    'given a read %s, then INVALID_ARGUMENT and a recorded violation',
    async (_label, options, reason) => {
      const double = await start();
      const error = await call(double, new streams.ReadReq().setOptions(options()));
      expect(error.code).toBe(Status.INVALID_ARGUMENT);
      expect(double.violations).toEqual([
        { rpc: 'Streams.Read', kind: 'request', reason: expect.stringMatching(reason) as unknown },
      ]);
    },
  );
});
