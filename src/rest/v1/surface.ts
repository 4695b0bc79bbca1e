/**
 * REST v1, deprecated: the v2 operations behind the v1 SDKs' shapes (openapi/v1.yaml). Every route
 * converts its shape and calls the operation its v2 twin calls; nothing here decides a rule.
 */
import { projectPath } from '../../infra/projectFiles.js';
import { countRestV1Call } from './metrics.js';
import type { RestSurface, RouteBinding } from '../pipeline.js';
import { V2_ROOT } from '../v2/surface.js';
import { accountRoutes } from './accounts.js';
import { cashoutRoutes } from './cashout.js';
import { transactionRoutes } from './transactions.js';

export const V1_ROOT = '/api/v1';
export const V1_DEFINITION = projectPath('openapi', 'v1.yaml');

/**
 * v1 is deprecated from the day this gateway first served it (2026-11-23) and may stop answering
 * a year later: the Sunset date gives v1 integrations a year to move to v2. Formats: Deprecation
 * is an RFC 9745 structured-field date (`@` + Unix seconds), Sunset an RFC 8594 HTTP-date.
 * openapi/v1.yaml states the same two dates.
 */
const DEPRECATED_SINCE = Date.UTC(2026, 10, 23);
const SUNSET_AT = Date.UTC(2027, 10, 23);

const V1_HEADERS = {
  deprecation: `@${DEPRECATED_SINCE / 1000}`,
  sunset: new Date(SUNSET_AT).toUTCString(),
  link: `<${V2_ROOT}>; rel="successor-version"`,
};

/** Counts each authorised v1 call per API key (by its id) in /metrics: who still calls v1. */
function countedPerKey(routes: Record<string, RouteBinding>): Record<string, RouteBinding> {
  return Object.fromEntries(
    Object.entries(routes).map(([route, binding]) => [
      route,
      {
        operation: binding.operation,
        handle: (ctx, access, request) => {
          // REST authenticates API keys only (never a dashboard session), so the caller is a key.
          if (access.caller.kind === 'merchant') countRestV1Call(access.caller.apiKeyId, route);
          return binding.handle(ctx, access, request);
        },
      } satisfies RouteBinding,
    ]),
  );
}

export const v1Surface: RestSurface = {
  root: V1_ROOT,
  definition: V1_DEFINITION,
  errorBody: (message) => ({ Detail: message }),
  headers: V1_HEADERS,
  routes: countedPerKey({ ...transactionRoutes, ...accountRoutes, ...cashoutRoutes }),
};
