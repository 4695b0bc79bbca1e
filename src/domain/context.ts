/**
 * What every operation receives: its dependencies (ports) and who is calling.
 * Adapters build these; operations never construct clients themselves.
 */
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Coordination } from './coordination.js';

export type Db = PrismaClient;

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface GatewaySettings {
  /** Base address of the checkout origin, put into checkout_url and default redirect pages. */
  checkoutPublicUrl: string;
}

export interface GatewayContext {
  db: Db;
  clock: Clock;
  coordination: Coordination;
  settings: GatewaySettings;
  log: Logger;
}
