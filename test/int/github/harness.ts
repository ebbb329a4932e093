import { encodePosition } from '../../../services/event-store/position.js';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { RecordedEvent } from '../../../services/event-store/types.js';
import { githubReactorMigrations } from '../../../services/github/checkpoint.js';
import {
  createGitHubClient,
  type GitHubClient,
  type GitHubClientOptions,
} from '../../../services/github/client.js';
import { createGitHubOperations } from '../../../services/github/operations.js';
import {
  createGitHubReactor,
  type GitHubReactor,
  type GitHubReactorOptions,
} from '../../../services/github/reactor.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { requestStreamId } from '../../../services/requests/events.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import {
  createPrincipalDirectory,
  principalTableSchema,
  type PrincipalTableInput,
} from '../../../services/principals/principals.js';
import {
  createGovernanceService,
  type GovernanceService,
} from '../../../services/governance/service.js';
import { Secret } from '../../../services/runtime/config.js';
import { createLogger, type Logger } from '../../../services/runtime/logger.js';
import { startGitHubDouble, type GitHubDouble } from '../../support/github-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * The GitHub tests' world: a throwaway Postgres with the event store and the reactor's tables,
 * the real request command handlers, and the GitHub double with one repository. Clients are
 * real Octokit instances over real HTTP, with timings shrunk for tests only.
 */
export const OWNER = 'acme';
export const REPO = 'widgets';
export const REPOSITORY = `${OWNER}/${REPO}`;

export const silentLogger: Logger = createLogger(
  (process.env.TEST_LOG_LEVEL as 'debug' | undefined) ?? 'silent',
);

export interface Harness {
  readonly throwaway: ThrowawayDatabase;
  readonly database: Database;
  readonly eventStore: PostgresEventStore;
  readonly handlers: RequestCommandHandlers;
  readonly governance: GovernanceService;
  readonly double: GitHubDouble;
  client(options?: Partial<GitHubClientOptions>): GitHubClient;
  reactor(client: GitHubClient, options?: Partial<GitHubReactorOptions>): GitHubReactor;
  close(): Promise<void>;
}

export const openHarness = async (
  label: string,
  options: { readonly principals?: PrincipalTableInput } = {},
): Promise<Harness> => {
  const throwaway = await createThrowawayDatabase(label);
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 6,
    logger: silentLogger,
  });
  await migrate(database.pool, [eventStoreMigrations, githubReactorMigrations], silentLogger);
  const eventStore = createPostgresEventStore({
    database,
    logger: silentLogger,
    pollIntervalMs: 50,
  });
  const principals = createPrincipalDirectory(principalTableSchema.parse(options.principals ?? {}));
  const handlers = createRequestCommandHandlers({ eventStore, principals });
  const governance = createGovernanceService({
    eventStore,
    handlers,
    principals,
    configuredMode: 'github',
    repository: REPOSITORY,
  });
  const double = await startGitHubDouble();
  double.createRepository(OWNER, REPO);
  const reactors: GitHubReactor[] = [];
  return {
    throwaway,
    database,
    eventStore,
    handlers,
    governance,
    double,
    client: (options) =>
      createGitHubClient({
        apiUrl: double.url,
        auth: { kind: 'token', token: new Secret('ghp_test_token') },
        logger: silentLogger,
        requestTimeoutMs: 2000,
        timeScaleMs: 1,
        spaceWrites: false,
        ...options,
      }),
    reactor: (client, options) => {
      const reactor = createGitHubReactor({
        eventStore,
        pool: database.pool,
        github: createGitHubOperations({
          client,
          repository: REPOSITORY,
          logger: silentLogger,
          createPolicy: { attempts: 5, initialDelayMs: 5, maxDelayMs: 50 },
        }),
        handlers,
        logger: silentLogger,
        retry: { initialDelayMs: 10, maxDelayMs: 200 },
        ...options,
      });
      reactors.push(reactor);
      return reactor;
    },
    close: async () => {
      for (const reactor of reactors) await reactor.stop();
      await double.close();
      await eventStore.close();
      await database.close();
      await throwaway.drop();
    },
  };
};

export const meta = (actor: string): CommandMetadata => ({
  commandId: randomUUID(),
  actor,
  at: new Date().toISOString(),
});

/** A valid intake; `n` makes titles distinct. */
export const intakeForm = (n: number) => ({
  title: `Export the audit log as CSV, batch ${n}`,
  problem: `Auditors cannot export the audit log (batch ${n}), so they copy rows by hand every month.`,
  product: 'mcp-gateway',
  requester: 'ada',
  acceptanceCriteria: [
    'The export contains every audit event of the chosen month',
    'An export of 100000 events finishes in under 30 seconds',
  ],
  links: [{ url: 'https://example.org/audit', title: 'audit notes' }],
  priority: 'high' as const,
});

export const proposeIntake = async (
  handlers: RequestCommandHandlers,
  n: number,
  actor = 'agent:alpha',
): Promise<string> => (await handlers.proposeIntake(intakeForm(n), meta(actor))).requestId;

/** proposed → accepted, which the intake alone satisfies. */
export const proposeAcceptance = async (
  handlers: RequestCommandHandlers,
  requestId: string,
  actor = 'agent:alpha',
): Promise<string> =>
  (
    await handlers.proposeStageAdvance(
      {
        requestId,
        toStage: 'accepted',
        evidence: { criteria: { 'ac-1': 'agreed with the audit team' }, notes: 'triaged' },
        rationale: 'The intake meets the Definition of Done of proposed.',
      },
      meta(actor),
    )
  ).proposalId;

export const requestEvents = (
  harness: Pick<Harness, 'eventStore'>,
  requestId: string,
): Promise<RecordedEvent[]> => harness.eventStore.readStream(requestStreamId(requestId));

export const eventTypes = async (
  harness: Pick<Harness, 'eventStore'>,
  requestId: string,
): Promise<string[]> => (await requestEvents(harness, requestId)).map((event) => event.type);

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
export const waitFor = async (
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/**
 * Resolves once the reactor's checkpoint has reached the newest request event of the log.
 * The newest event is read from the table, not through readAll: readAll deliberately hides
 * events while any older transaction in the cluster is still open (other test files run
 * beside this one), and the reactor's subscription waits for that horizon too.
 */
export const reactorCaughtUp = async (
  harness: Pick<Harness, 'database'>,
  reactor: GitHubReactor,
  timeoutMs = 30_000,
): Promise<void> => {
  const { rows } = await harness.database.pool.query<{ tx: string; pos: string }>(
    `SELECT transaction_id::text AS tx, position::text AS pos FROM event_store.events
      WHERE event_type = ANY($1::text[]) ORDER BY transaction_id DESC, position DESC LIMIT 1`,
    [
      [
        'RequestProposed',
        'StageAdvanceProposed',
        'StageAdvanceApproved',
        'StageAdvanceRejected',
        'IntakeRejected',
        'RequestWithdrawn',
        'RepositoryDiverged',
      ],
    ],
  );
  const newest = rows[0];
  if (!newest) return;
  const last = { position: encodePosition(BigInt(newest.tx), BigInt(newest.pos)) };
  await waitFor(
    () => (reactor.status().checkpoint ?? '') >= last.position,
    timeoutMs,
    `the reactor to handle ${last.position} (status ${JSON.stringify(reactor.status())})`,
  );
};
