/** The sandbox's payout outcomes (DESIGN.md's phone table) and what payoutStatus later says of them. */
import { describe, expect, it } from 'vitest';
import { createSandboxProvider } from '../../src/infra/providers/sandbox.js';

const request = (phone: string, reference: string) => ({ method: 'wave' as const, phone, amount: 5000n, reference });

describe('sandbox payouts', () => {
  it('follow the recipient wallet, and payoutStatus answers what became of each reference', async () => {
    const sandbox = createSandboxProvider();
    expect(await sandbox.payout(request('+221770000001', 'ok'))).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_payout_/) });
    expect((await sandbox.payout(request('+221770000009', 'also-ok'))).status).toBe('succeeded');
    expect((await sandbox.payout(request('+221770000000', 'refused'))).status).toBe('failed');
    expect((await sandbox.payout(request('+221770001111', 'slow'))).status).toBe('pending');

    expect((await sandbox.payoutStatus('ok')).status).toBe('succeeded');
    expect((await sandbox.payoutStatus('refused')).status).toBe('failed');
    // The timed-out one went through: only its answer was lost.
    expect(await sandbox.payoutStatus('slow')).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_payout_/) });
    expect((await sandbox.payoutStatus('never-sent')).status).toBe('not_found');
  });

  it('does not send a reference twice: a repeated call gets the first answer', async () => {
    const sandbox = createSandboxProvider();
    const first = await sandbox.payout(request('+221770000001', 'once'));
    // Even with another wallet: the reference identifies the payout.
    expect(await sandbox.payout(request('+221770000000', 'once'))).toEqual(first);
  });
});
