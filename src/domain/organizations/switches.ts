/**
 * Operator kill switches: a switch with no row is on.
 *
 * Creating a transaction must not pay a database round trip for them on every request, so the
 * switches are kept in memory (SwitchCache), with the same correctness rules as the caller cache
 * (callerCache.ts): setting a switch drops the cached switches at once in this process and, through
 * the coordination bus (Redis pub/sub), in every other instance; a read that started before a
 * change is not cached (the generation check); if a message is lost (Redis down) an instance
 * serves what it read at most SWITCH_CACHE_TTL_MS ago.
 */
import { PAYMENT_METHODS } from '../enums.js';
import { INVALIDATE_ALL, type Db, type InvalidationBus } from '../ports.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { readSwitchRows } from './store.js';

declare module '../context.js' {
  interface GatewayContext {
    /** The kill switches kept briefly (SwitchCache); absent = every creation reads them. */
    switches?: SwitchCache;
  }
}

export type SwitchName = 'transactions' | 'payouts' | PaymentMethod;
export const SWITCH_NAMES: readonly SwitchName[] = ['transactions', 'payouts', ...PAYMENT_METHODS];

/** How long another instance may act on a switch's old state if its invalidation is lost. */
export const SWITCH_CACHE_TTL_MS = 5_000;
/** The bus message that says "a switch changed". */
export const SWITCHES_CHANGED = 'switches';

/** The state of every switch: true = on. */
export type SwitchStates = ReadonlyMap<SwitchName, boolean>;

type SwitchReader = Pick<Db, 'switch'>;

/** Every switch in one statement. */
export async function readSwitches(db: SwitchReader): Promise<SwitchStates> {
  const rows = await readSwitchRows(db);
  const stored = new Map(rows.map((row) => [row.name, row.on]));
  return new Map(SWITCH_NAMES.map((name) => [name, stored.get(name) ?? true]));
}

export class SwitchCache {
  private states: SwitchStates | undefined;
  private expiresAt = 0;
  private generation = 0;

  constructor(
    private readonly bus: InvalidationBus,
    private readonly now: () => number = Date.now,
  ) {
    bus.subscribe((message) => {
      if (message === SWITCHES_CHANGED || message === INVALIDATE_ALL) this.drop();
    });
  }

  /** The switches, from memory while fresh, else read through `db` (a transaction's client may be given). */
  async read(db: SwitchReader): Promise<SwitchStates> {
    if (this.states && this.expiresAt > this.now()) return this.states;
    const stamp = this.generation;
    const states = await readSwitches(db);
    if (stamp === this.generation) {
      this.states = states;
      this.expiresAt = this.now() + SWITCH_CACHE_TTL_MS;
    }
    return states;
  }

  /** After a switch changed: drops the cached switches here and (through the bus) in every other instance. */
  async invalidate(): Promise<void> {
    this.drop();
    await this.bus.publish(SWITCHES_CHANGED);
  }

  private drop(): void {
    this.generation += 1;
    this.states = undefined;
  }
}

/** The switches as an operation sees them: cached when the context has a cache. */
export function switchStates(ctx: { switches?: SwitchCache }, db: SwitchReader): Promise<SwitchStates> {
  return ctx.switches ? ctx.switches.read(db) : readSwitches(db);
}
