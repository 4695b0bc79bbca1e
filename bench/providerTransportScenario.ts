/**
 * What the one provider transport (src/infra/providers/transport.ts, issue 28) costs per call: a
 * Wave payout request (`POST /v1/payout`, its bearer key and idempotency key) sent through
 * `createProviderTransport().send` (deadline signal, no redirects, bounded streamed read, JSON
 * parse, classification, one log event, the health record) against the same request as a bare
 * `fetch` + `json()`. Both go, one call at a time taking turns, to one local server that answers
 * as Wave does (a 200 with a payout body), in the bench's own process: no gateway, no database.
 * The provider's own latency is out of it; what is left is the transport's overhead.
 *
 * Target: the transport adds at most `maxAddedP99Ms` to p99. Its row's CPU per request is the
 * bench process's CPU per call (server and client in one process: compare the two sides only).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProviderTransport } from '../src/infra/providers/transport.js';
import { comparedWithFloor, round2, sequentialFigures } from './load.js';
import type { BacklogScenario, Figures, Row } from './shapes.js';

export interface ProviderTransportScenarioOptions {
  name: string;
  /** Calls measured on each side (after as many warm-up calls as a tenth of them). */
  calls: number;
  /** Bound on the transport's p99 above the bare fetch's (ms). */
  maxAddedP99Ms: number;
}

const PAYOUT_REQUEST = JSON.stringify({
  currency: 'XOF',
  receive_amount: '5000',
  mobile: '+221770000001',
  name: 'Moussa Sow',
  client_reference: 'bench-payout',
});
const PAYOUT_ANSWER = JSON.stringify({
  id: 'pt-bench',
  currency: 'XOF',
  receive_amount: '5000',
  fee: '50',
  mobile: '+221770000001',
  name: 'Moussa Sow',
  client_reference: 'bench-payout',
  status: 'succeeded',
  timestamp: '2026-11-27T00:00:00Z',
});

/** A local server answering every call as Wave answers a payout it made. */
async function startAnsweringServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(PAYOUT_ANSWER) });
      response.end(PAYOUT_ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Side {
  durations: number[];
  cpuMicros: number;
  failed: number;
  statusCodes: Record<string, number>;
}

const newSide = (): Side => ({ durations: [], cpuMicros: 0, failed: 0, statusCodes: {} });

/** One call on one side, timed (wall and this process's CPU) when `side` is given. */
async function timed(side: Side | null, call: () => Promise<number>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let status = 0;
  try {
    status = await call();
  } catch {
    status = 0;
  }
  if (!side) return;
  side.durations.push(Number(process.hrtime.bigint() - started) / 1e6);
  const used = process.cpuUsage(cpu);
  side.cpuMicros += used.user + used.system;
  side.statusCodes[String(status)] = (side.statusCodes[String(status)] ?? 0) + 1;
  if (status !== 200) side.failed += 1;
}

const figuresOf = (side: Side): Figures =>
  sequentialFigures(side.durations, {
    failedAnswers: side.failed,
    statusCodes: side.statusCodes,
    cpuMsPerRequest: round2(side.cpuMicros / 1000 / Math.max(side.durations.length, 1)),
  });

export function providerTransportScenario(options: ProviderTransportScenarioOptions): BacklogScenario {
  const floorName = 'the same call as a bare fetch + json()';
  return {
    kind: 'backlog',
    name: options.name,
    target: { kind: 'p99', maxMs: options.maxAddedP99Ms },
    budgetMs: 60_000,
    async run({ log }): Promise<Row> {
      const { url, server } = await startAnsweringServer();
      try {
        const transport = createProviderTransport();
        const headers = { authorization: 'Bearer wave_sn_prod_bench', 'content-type': 'application/json', 'idempotency-key': 'bench-payout' };
        const viaTransport = async () => {
          const exchange = await transport.send({
            provider: 'wave',
            operation: 'payout',
            method: 'POST',
            url: `${url}/v1/payout`,
            headers,
            body: PAYOUT_REQUEST,
            timeoutMs: 20_000,
            maxBytes: 1 << 20,
          });
          return exchange.outcome === 'accepted' ? exchange.status : -1;
        };
        const bare = async () => {
          const response = await fetch(`${url}/v1/payout`, { method: 'POST', headers, body: PAYOUT_REQUEST });
          await response.json();
          return response.status;
        };
        const floor = newSide();
        const gateway = newSide();
        const warmup = Math.ceil(options.calls / 10);
        for (let i = 0; i < warmup + options.calls; i += 1) {
          const measured = i >= warmup;
          // Taking turns call by call, the first side alternating: neither gets the warmer moment.
          const [first, second] = i % 2 === 0 ? ([bare, viaTransport] as const) : ([viaTransport, bare] as const);
          await timed(measured ? (first === bare ? floor : gateway) : null, first);
          await timed(measured ? (second === bare ? floor : gateway) : null, second);
        }
        const floorFigures = figuresOf(floor);
        const transportFigures = figuresOf(gateway);
        log(
          `  baseline ${floorName}: p50 ${floorFigures.p50} ms, p99 ${floorFigures.p99} ms, ${floorFigures.cpuMsPerRequest} ms CPU/call; transport: p50 ${transportFigures.p50} ms, p99 ${transportFigures.p99} ms, ${transportFigures.cpuMsPerRequest} ms CPU/call`,
        );
        const compared = comparedWithFloor(transportFigures, floorFigures);
        const invalid = [
          transportFigures.failedAnswers > 0 &&
            `transport: ${transportFigures.failedAnswers} calls not accepted ${JSON.stringify(transportFigures.statusCodes)}`,
          floorFigures.failedAnswers > 0 && `bare fetch: ${floorFigures.failedAnswers} failed ${JSON.stringify(floorFigures.statusCodes)}`,
        ]
          .filter(Boolean)
          .join('; ');
        return {
          scenario: options.name,
          baseline: floorName,
          gateway: transportFigures,
          floor: floorFigures,
          ...compared,
          target: `p99 +<=${options.maxAddedP99Ms} ms`,
          met: !invalid && compared.addedP99Ms <= options.maxAddedP99Ms,
          ...(invalid && { invalid }),
        };
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
