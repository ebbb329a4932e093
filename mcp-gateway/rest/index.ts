/** The read-only REST surface generated from the tool registry (see routes.ts for mounting). */
export {
  createRestSurface,
  type CallerResolver,
  type RestSurface,
  type RestSurfaceOptions,
} from './routes.js';
export { buildOpenApiDocument, OPENAPI_PATH, REST_PREFIX, readTools, restPath } from './openapi.js';
export { toCogitaveError } from './invoke.js';
export { HTTP_STATUS_BY_CODE, problemOf, type Problem } from './problems.js';
export { toolSchemas, type JsonSchema, type ToolSchemas } from './schemas.js';
