/**
 * Keeping a short lease while its holder lives: the organisation's payout lease
 * (payouts/store.ts) and a payout batch's runner lease (payoutBatches/store.ts) each live a few
 * seconds past their last renewal, and their holder renews them a few times within that while its
 * work runs (a provider call of up to PROVIDER_TIMEOUT_MS, a batch's items one after the other).
 *
 * So a live holder keeps its lease however long its work lasts, and a holder that died (kill -9,
 * a lost machine) or froze stops renewing: its lease lapses within one life, and another instance
 * goes on. A lapse under a holder that is alive but could not renew in time (a stalled event loop,
 * the database away for seconds) is harmless by design: money never rests on these leases (the
 * conditional debit, each payout's own reference and each item's idempotency key do), they only
 * keep payouts of an organisation one at a time in the normal case.
 */
import type { Logger } from './ports.js';

/** How often a held lease is renewed: four times per life, so one late or failed renewal does not lose it. */
const renewalEveryMs = (lifeMs: number): number => Math.max(1, Math.floor(lifeMs / 4));

export interface LeaseKeeper {
  /** Stops renewing (the work ended; releasing is the caller's). */
  stop(): void;
}

/**
 * Calls `renew` every renewalEveryMs(lifeMs) until stopped or until `renew` says the lease is no
 * longer held (false: released, taken over, or the work it covers ended). A renewal waits for the
 * one before it; one that fails is logged and the next one tries again (the lease lapses only if
 * they keep failing for a whole life). The timer never keeps the process alive.
 */
export function keepLease(lifeMs: number, renew: () => Promise<boolean>, log: Logger, what: object): LeaseKeeper {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(tick, renewalEveryMs(lifeMs));
    timer.unref();
  };
  const tick = () => {
    renew().then(
      (held) => {
        if (held) next();
        else stopped = true;
      },
      (error: unknown) => {
        log.warn({ err: error, ...what }, 'could not renew a lease; it lapses unless a later renewal succeeds');
        next();
      },
    );
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
