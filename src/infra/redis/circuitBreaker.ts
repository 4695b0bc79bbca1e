/**
 * A circuit breaker with a deadline, for calls to a remote dependency (Redis coordination).
 *
 * closed    - calls run; each is bounded by `timeoutMs`. `failureThreshold` consecutive failures open it.
 * open      - calls fail at once with CoordinatorUnavailableError, without touching the dependency,
 *             until `coolDownMs` has passed (or `endCoolDown()` says the dependency is reachable again).
 * half-open - the next call is let through as the one probe (concurrent calls still fail fast);
 *             its success closes the breaker, its failure opens it for another cool-down.
 *
 * Only errors that `isFailure` accepts count (a Redis error reply means Redis answered: it is up).
 */

/** The coordinator could not be reached in time (breaker open, timeout, connection down). */
export class CoordinatorUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CoordinatorUnavailableError';
  }
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** How long the breaker stays open before it lets one probe through. */
  coolDownMs: number;
  /** Deadline for one call; past it the call rejects with CoordinatorUnavailableError (and counts as a failure). */
  timeoutMs: number;
  /** Which errors say "the dependency is unreachable" (default: all). */
  isFailure?: (error: unknown) => boolean;
  onStateChange?: (from: BreakerState, to: BreakerState) => void;
  now?: () => number;
}

export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #probing = false;
  readonly #options: Required<Omit<CircuitBreakerOptions, 'onStateChange'>> & Pick<CircuitBreakerOptions, 'onStateChange'>;

  constructor(options: CircuitBreakerOptions) {
    this.#options = { isFailure: () => true, now: Date.now, ...options };
  }

  /** The state as the next call would see it (an open breaker past its cool-down reads half-open). */
  get state(): BreakerState {
    if (this.#state === 'open' && this.#options.now() - this.#openedAt >= this.#options.coolDownMs) return 'half-open';
    return this.#state;
  }

  /**
   * Runs `work` under the breaker. `work` receives the deadline (epoch ms) so it can stop waiting
   * for a connection by then; the breaker rejects at the deadline whatever `work` does.
   */
  async run<T>(work: (deadline: number) => Promise<T>): Promise<T> {
    const state = this.state;
    if (state === 'open') throw new CoordinatorUnavailableError('circuit open: coordinator unreachable, not trying');
    if (state === 'half-open') {
      if (this.#probing) throw new CoordinatorUnavailableError('circuit half-open: a probe is already in flight');
      this.#probing = true;
      this.#transition('half-open');
    }
    const isProbe = state === 'half-open';
    try {
      const result = await this.#withDeadline(work);
      this.#succeeded();
      return result;
    } catch (error) {
      if (this.#options.isFailure(error)) this.#failed();
      else this.#succeeded(); // the dependency answered (with an error of its own): it is reachable
      throw error;
    } finally {
      if (isProbe) this.#probing = false;
    }
  }

  /** Ends an open breaker's cool-down now: the next call is the probe (e.g. the connection is back). */
  endCoolDown(): void {
    if (this.#state === 'open') this.#openedAt = this.#options.now() - this.#options.coolDownMs;
  }

  async #withDeadline<T>(work: (deadline: number) => Promise<T>): Promise<T> {
    const { timeoutMs } = this.#options;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      // The verdict waits one turn of the event loop (setImmediate runs after the I/O phase): a
      // process busy past the deadline runs its due timers BEFORE it reads the sockets, so an
      // answer already received would otherwise lose to its own deadline. Under a loaded machine
      // that sent rate-limit hits to the local fallback although Redis had counted them (2 x 100
      // allowed instead of 100: faults/rate-limit-two-instances, seen in a full run).
      const giveUp = () => reject(new CoordinatorUnavailableError(`coordinator did not answer within ${timeoutMs} ms`));
      timer = setTimeout(() => setImmediate(giveUp), timeoutMs);
    });
    const call = work(this.#options.now() + timeoutMs);
    call.catch(() => undefined); // a late rejection after the deadline won must not go unhandled
    try {
      return await Promise.race([call, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  #succeeded(): void {
    this.#failures = 0;
    this.#transition('closed');
  }

  #failed(): void {
    this.#failures += 1;
    if (this.#state === 'half-open' || this.#failures >= this.#options.failureThreshold) {
      this.#openedAt = this.#options.now();
      this.#transition('open');
    }
  }

  #transition(to: BreakerState): void {
    const from = this.#state;
    if (from === to) return;
    this.#state = to;
    this.#options.onStateChange?.(from, to);
  }
}
