/**
 * What an issued operator token costs per request (issue 19): issued tokens are cached like API
 * keys (domain/access/callerCache.ts: revocation invalidates them in every instance), so a request
 * with one reads PostgreSQL only when the cache cannot answer (first use, or while this instance
 * cannot hear Redis). The floor is the same request with the bootstrap GATEWAY_ADMIN_TOKEN, which
 * is compared in memory and reads nothing.
 * Both go to the same gateway, one request at a time, taking turns request by request (as the
 * limiter's 1-connection scenario does), LOAD.rounds rounds; the query is `{ __typename }`, so
 * the difference is authentication alone. Target: the lookup adds at most `maxAddedP99Ms` to p99.
 *
 * The analyst token is issued through GraphQL by the bootstrap admin before, and revoked after.
 */
import { combine, comparedWithFloor, isValid, measurePaired, type LoadTarget } from './load.js';
import { BENCH_ADMIN_TOKEN } from './servers.js';
import { LOAD } from './settings.js';
import type { BacklogContext, BacklogScenario, Figures, RequestFactory, Row } from './shapes.js';

export interface OperatorTokenScenarioOptions {
  name: string;
  /** Bound on the issued token's p99 above the bootstrap token's (ms). */
  maxAddedP99Ms: number;
}

const BODY = JSON.stringify({ query: '{ __typename }' });

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json()) as { data?: any; errors?: unknown[] };
  if (response.status !== 200 || answer.errors) throw new Error(`GraphQL answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.data;
}

export function operatorTokenScenario(options: OperatorTokenScenarioOptions): BacklogScenario {
  const floorName = 'the same request with the bootstrap token (no lookup)';
  return {
    kind: 'backlog',
    name: options.name,
    // Judged on the ADDED p99 (issued token minus bootstrap token), shown as `p99 +<=N ms` in the report.
    target: { kind: 'p99', maxMs: options.maxAddedP99Ms },
    budgetMs: LOAD.rounds * (LOAD.firstWarmupSeconds + LOAD.durationSeconds + 8) * 1000,
    async run({ servers, log }: BacklogContext): Promise<Row> {
      const gateway = await servers.get('gateway');
      const issued = (await graphql(gateway.url, BENCH_ADMIN_TOKEN, 'mutation { createOperatorToken(role: analyst) { token operatorToken { id } } }'))
        .createOperatorToken;
      try {
        const bootstrap: LoadTarget = { url: gateway.url, pid: gateway.pid, headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } };
        const analyst: LoadTarget = { url: gateway.url, pid: gateway.pid, headers: { authorization: `Bearer ${issued.token}` } };
        const request: RequestFactory = () => ({ method: 'POST', path: '/graphql', body: BODY });
        const floorRounds: Figures[] = [];
        const gatewayRounds: Figures[] = [];
        for (let round = 0; round < LOAD.rounds; round += 1) {
          const [floor, withToken] = await measurePaired(bootstrap, analyst, request, round === 0 ? LOAD.firstWarmupSeconds : LOAD.warmupSeconds);
          floorRounds.push(floor);
          gatewayRounds.push(withToken);
        }
        const floor = combine(floorRounds);
        const withToken = combine(gatewayRounds);
        log(
          `  baseline ${floorName}: ${floor.reqPerSec} req/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms; issued token: p50 ${withToken.p50} ms, p99 ${withToken.p99} ms`,
        );
        const compared = comparedWithFloor(withToken, floor);
        const invalid = [
          !isValid(withToken) && `issued token: ${withToken.failedAnswers} failed answers ${JSON.stringify(withToken.statusCodes)}, ${withToken.errors} errors`,
          !isValid(floor) && `bootstrap token: ${floor.failedAnswers} failed answers ${JSON.stringify(floor.statusCodes)}, ${floor.errors} errors`,
        ]
          .filter(Boolean)
          .join('; ');
        return {
          scenario: options.name,
          baseline: floorName,
          gateway: withToken,
          floor,
          ...compared,
          target: `p99 +<=${options.maxAddedP99Ms} ms`,
          met: !invalid && compared.addedP99Ms <= options.maxAddedP99Ms,
          ...(invalid && { invalid }),
        };
      } finally {
        await graphql(gateway.url, BENCH_ADMIN_TOKEN, 'mutation($id: ID!) { revokeOperatorToken(id: $id) { id } }', { id: issued.operatorToken.id }).catch(
          () => undefined,
        );
      }
    },
  };
}
