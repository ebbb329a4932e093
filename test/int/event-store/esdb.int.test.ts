import { expect } from 'vitest';
import { createEsdbEventStore } from '../../../services/event-store/esdb/adapter.js';
import { startEsdbDouble } from '../../support/esdb-double/index.js';
import { describeEventStoreContract, type ContractSubject } from './contract.js';

const url = process.env['EVENTSTORE_URL'];

const subject = (connectionString: string, after: () => Promise<void>): ContractSubject => {
  const store = createEsdbEventStore({ connectionString });
  // EventStoreDB has no client-visible transactions (no openTransaction): the suite's
  // delayed-commit cases skip themselves.
  return {
    store,
    concurrentTransactions: true,
    globalEventIds: false,
    close: async () => {
      await store.close();
      await after();
    },
  };
};

// The protocol double (test/support/esdb-double) serves the client's own gRPC definitions:
// this run needs no server and is part of every test run.
describeEventStoreContract('esdb (protocol double)', async () => {
  const double = await startEsdbDouble();
  return subject(double.url, async () => {
    await double.close();
    expect(double.violations).toEqual([]);
  });
});

describeEventStoreContract(
  'esdb (server at EVENTSTORE_URL)',
  () => Promise.resolve(subject(url ?? '', () => Promise.resolve())),
  url
    ? undefined
    : 'EVENTSTORE_URL is not set: start EventStoreDB (e.g. docker run -p 2113:2113 eventstore/eventstore --insecure --run-projections=All) and run EVENTSTORE_URL=esdb://localhost:2113?tls=false npm run test:int',
);
