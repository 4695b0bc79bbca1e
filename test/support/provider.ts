/** Swapping the gateway's wallet provider for a stand-in (the one thing tests may replace). */
import type { PaymentProvider } from '../../src/domain/ports.js';
import type { TestGateway } from './gateway.js';

/** Runs `work` while the gateway's requests use `provider`, then puts the sandbox back. */
export async function withProvider<T>(gateway: Pick<TestGateway, 'ctx'>, provider: PaymentProvider, work: () => Promise<T>): Promise<T> {
  const original = gateway.ctx.provider;
  gateway.ctx.provider = provider;
  try {
    return await work();
  } finally {
    gateway.ctx.provider = original;
  }
}
