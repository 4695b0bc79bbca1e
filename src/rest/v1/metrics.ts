/**
 * rest_v1_requests_total{api_key, route}: authorised calls of the deprecated REST v1 per API key
 * (its id, never the secret: bounded by the keys an operator created) and v1 route, so an operator
 * sees who still calls v1 before its Sunset date. The HTTP host registers it in /metrics
 * (http/metrics.ts); v1 counts where the caller's key is known, after authorisation.
 */
import { Counter } from 'prom-client';

/**
 * One counter for the process, registered in every app's registry: the v1 routes count where the
 * caller's key is known (after authorisation), which is not where an app's registry is reachable.
 * A production process has one app; test gateways sharing a process keep apart by their keys.
 */
export const restV1Requests = new Counter({
  name: 'rest_v1_requests_total',
  help: 'Authorised REST v1 (deprecated) calls, per API key id and v1 route',
  labelNames: ['api_key', 'route'],
  registers: [],
});

export function countRestV1Call(apiKeyId: string, route: string): void {
  restV1Requests.inc({ api_key: apiKeyId, route });
}
