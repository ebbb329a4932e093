/**
 * A local GitHub REST API for tests: a `node:http` server that validates every request
 * against GitHub's official OpenAPI description, keeps repositories, issues, pull requests,
 * refs and files in memory, answers with GitHub's shapes, and injects faults on demand.
 *
 *   const github = await startGitHubDouble();
 *   const octokit = new Octokit({ auth: 'test-token', baseUrl: github.url });
 *   …
 *   expect(github.violations).toEqual([]);
 *   await github.close();
 */
export {
  GitHubDouble,
  startGitHubDouble,
  type AppRegistration,
  type DoubleStats,
  type GitHubDoubleOptions,
  type RequestRecord,
  type Violation,
  type ViolationKind,
  type WriteEvent,
  type WriteListener,
} from './server.js';
export {
  FAULT_KINDS,
  FaultController,
  type CallInfo,
  type FaultHandle,
  type FaultKind,
  type FaultOptions,
  type FaultRule,
  type RandomFaults,
} from './faults.js';
export type { RepositoryOptions, StateReason } from './state.js';
export type {
  ContentJson,
  FileCommitJson,
  GitRefJson,
  IssueCommentJson,
  IssueJson,
  LabelJson,
  PullRequestJson,
  PullRequestSimpleJson,
  RepositoryJson,
  UserJson,
} from './representations.js';
export { loadOpenApi, type OpenApi } from './openapi.js';
