/** The sandbox's refund outcomes (DESIGN.md's phone table) and what refundStatus later says of them. */
import { describe, expect, it } from 'vitest';
import { createSandboxProvider } from '../../src/infra/providers/sandbox.js';

const request = (phone: string, reference: string) => ({ method: 'wave' as const, phone, amount: 1000n, reference });

describe('sandbox refunds', () => {
  it('follow the payer wallet, and refundStatus answers what became of each reference', async () => {
    const sandbox = createSandboxProvider();
    expect((await sandbox.refund(request('+221770000001', 'ok'))).status).toBe('succeeded');
    expect((await sandbox.refund(request('+221770000009', 'refused'))).status).toBe('failed');
    expect((await sandbox.refund(request('+221770000000', 'empty'))).status).toBe('failed');
    expect((await sandbox.refund(request('+221770001111', 'slow'))).status).toBe('pending');

    expect((await sandbox.refundStatus('ok')).status).toBe('succeeded');
    expect((await sandbox.refundStatus('refused')).status).toBe('failed');
    expect((await sandbox.refundStatus('empty')).status).toBe('failed');
    // The timed-out one went through: only its answer was lost.
    expect((await sandbox.refundStatus('slow')).status).toBe('succeeded');
    expect((await sandbox.refundStatus('never-sent')).status).toBe('not_found');
  });
});
