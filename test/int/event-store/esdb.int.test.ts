import { createEsdbEventStore } from '../../../services/event-store/esdb/adapter.js';
import { describeEventStoreContract, type ContractSubject } from './contract.js';

const url = process.env['EVENTSTORE_URL'];

const subject = (connectionString: string): Promise<ContractSubject> => {
  const store = createEsdbEventStore({ connectionString });
  // EventStoreDB has no client-visible transactions (no openTransaction): the suite's
  // delayed-commit cases skip themselves.
  return Promise.resolve({
    store,
    concurrentTransactions: true,
    globalEventIds: false,
    close: () => store.close(),
  });
};

describeEventStoreContract(
  'esdb',
  () => subject(url ?? ''),
  url
    ? undefined
    : 'EVENTSTORE_URL is not set: start EventStoreDB (e.g. docker run -p 2113:2113 eventstore/eventstore --insecure --run-projections=All) and run EVENTSTORE_URL=esdb://localhost:2113?tls=false npm run test:int',
);
