import type { ToolDefinition } from '../registry.js';
import { codeSampleSearchTool } from './code-sample-search.js';
import { docsSearchTool } from './docs-search.js';
import { describeSchemaTool } from './describe-schema.js';
import { docsFetchTool } from './docs-fetch.js';
import { getLearningPathTool } from './get-learning-path.js';
import { getRelatedTool } from './get-related.js';
import { resolveXrefTool } from './resolve-xref.js';
import { advanceStageTool } from './advance-stage.js';
import { getDodTool } from './get-dod.js';
import { getRequestTool } from './get-request.js';
import { listRequestsTool } from './list-requests.js';
import { networkAddEdgeTool } from './network-add-edge.js';
import { networkAddEdgesTool } from './network-add-edges.js';
import { networkAddNodeTool } from './network-add-node.js';
import { networkAddNodesTool } from './network-add-nodes.js';
import { networkCreateTool } from './network-create.js';
import { networkGetNeighborsTool } from './network-get-neighbors.js';
import { networkListTool } from './network-list.js';
import { queryGraphTool } from './query-graph.js';
import { requestIntakeTool } from './request-intake.js';

/**
 * Every tool the gateway serves, in the order `tools/list` shows them. Each lives in its own
 * file; add the new one here (see CONTRIBUTING.md, "Add a tool").
 */
export const ALL_TOOLS: readonly ToolDefinition[] = [
  describeSchemaTool,
  docsSearchTool,
  docsFetchTool,
  codeSampleSearchTool,
  getRelatedTool,
  getLearningPathTool,
  resolveXrefTool,
  listRequestsTool,
  getRequestTool,
  getDodTool,
  requestIntakeTool,
  advanceStageTool,
  networkCreateTool,
  networkListTool,
  networkGetNeighborsTool,
  networkAddNodeTool,
  networkAddEdgeTool,
  networkAddNodesTool,
  networkAddEdgesTool,
  queryGraphTool,
];
