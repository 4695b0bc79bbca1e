/**
 * The reconciler's claim covers its question: a claim is dated from when it is taken (not from the
 * run's start, which a run of many slow questions leaves far behind), and a re-send made while
 * asking (askOrResend) ends with the question's deadline, so it never outlives the claim that lets
 * this instance send. Real timers, a fake store and provider: the flow's own rules only.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/domain/context.js';
import { askOrResend, reconcileOpenCalls, type OpenCallStore, type OpenProviderCall } from '../../src/domain/providerFlow.js';
import type { ProviderStatusAnswer } from '../../src/domain/ports.js';

const PROVIDER_TIMEOUT_MS = 300;
const CLAIM_MARGIN_MS = 5_000;

function contextWith(provider: object = {}): GatewayContext {
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  return {
    clock: { now: () => new Date() },
    settings: { providerTimeoutMs: PROVIDER_TIMEOUT_MS, reconcileAfterMs: 0 },
    log: quiet,
    db: {},
    provider,
  } as unknown as GatewayContext;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function storeOf(calls: OpenProviderCall[], ask: OpenCallStore<OpenProviderCall>['ask']) {
  const claims: { id: string; now: Date; until: Date }[] = [];
  const store: OpenCallStore<OpenProviderCall> = {
    kind: 'payout',
    listDue: async () => calls,
    ask,
    claim: async (call, now, until) => {
      claims.push({ id: call.id, now, until });
      return true;
    },
    settle: async () => undefined,
    postpone: async () => undefined,
    countOpen: async () => ({ open: 0, stuck: 0 }),
    listOpen: async () => [],
    findOpen: async () => null,
  };
  return { store, claims };
}

const openCall = (id: string): OpenProviderCall => ({ kind: 'payout', id, organizationId: 'org', providerChecks: 0 }) as OpenProviderCall;

describe('the reconciler claims a call for its question only', () => {
  it('dates each claim from when it is taken: the third of three slow questions is claimed until its own start plus the timeout and margin', async () => {
    const { store, claims } = storeOf([openCall('a'), openCall('b'), openCall('c')], async () => {
      await sleep(200);
      return { status: 'processing', providerReference: '' };
    });
    const runStarted = Date.now();
    await reconcileOpenCalls(contextWith(), store);
    expect(claims.map((claim) => claim.id)).toEqual(['a', 'b', 'c']);
    const third = claims[2]!;
    // Claimed after the two questions before it (~400 ms), not at the run's start.
    expect(third.now.getTime() - runStarted).toBeGreaterThanOrEqual(380);
    expect(third.until.getTime() - third.now.getTime()).toBe(PROVIDER_TIMEOUT_MS + CLAIM_MARGIN_MS);
  });

  it("ends a re-send with the question's deadline: a slow question leaves the re-send only what is left of it", async () => {
    const provider = { resendsSafely: () => true };
    const ctx = contextWith(provider);
    let resendAbortedAfterMs: number | null = null;
    let questionStarted = 0;
    const { store } = storeOf([openCall('p')], (call, questionEnds) =>
      askOrResend(
        ctx,
        { kind: 'payout', id: call.id, method: 'wave' },
        async (): Promise<ProviderStatusAnswer> => {
          questionStarted = Date.now();
          await sleep(200);
          return { status: 'not_found', providerReference: '' };
        },
        (signal) =>
          new Promise((_, reject) => {
            signal.addEventListener('abort', () => {
              resendAbortedAfterMs = Date.now() - questionStarted;
              reject(new Error('aborted'));
            });
          }),
        questionEnds,
      ),
    );
    const tally = await reconcileOpenCalls(ctx, store);
    await sleep(PROVIDER_TIMEOUT_MS + 100);
    expect(tally).toEqual({ settled: 0, stillPending: 1, errors: 0 });
    // The question's deadline (300 ms from its start), not the re-send's own (200 + 300 ms).
    expect(resendAbortedAfterMs).not.toBeNull();
    expect(resendAbortedAfterMs!).toBeLessThan(PROVIDER_TIMEOUT_MS + 150);
  });
});
