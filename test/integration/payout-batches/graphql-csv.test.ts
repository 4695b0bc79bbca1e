/**
 * Payout batches through GraphQL and the CSV upload (the dashboard's path), and the results CSV:
 * the CSV's refused lines named by line, the draft started without them, its progress and items
 * read back, the results downloaded; the CSV's limits refused with clear errors.
 */
import { describe, expect, it } from 'vitest';
import { runPayoutBatches } from '../../../src/domain/payoutBatches/runPayoutBatches.js';
import { useGateway } from '../../support/gateway.js';
import { fundedMerchant } from '../../support/payouts.js';

const gateway = useGateway();

const BATCH_FIELDS = `id status itemCount validCount totalAmount totalFees errors { line field error } counts { queued pending completed failed cancelled }`;

function csvOf(count: number, broken: Record<number, string> = {}): string {
  const lines = ['method,amount,phone,first_name,last_name,reason,reference'];
  for (let index = 1; index <= count; index += 1)
    lines.push(broken[index] ?? `wave,${1_000 + index},+22177${String(1_000_000 + index).padStart(7, '0')},Awa,"Diop, fils",Week 47,REF-${index}`);
  return `${lines.join('\r\n')}\r\n`;
}

describe('payout batches (GraphQL, CSV)', () => {
  it('uploads a CSV, names its refused lines, starts the rest, shows progress and items, and downloads the results', async () => {
    const { key } = await fundedMerchant(gateway, { balance: 5_000_000 });
    const csv = csvOf(20, { 4: 'wave,abc,+221770000004,,,,', 9: 'paypal,1000,+221770000009,,,,' });
    const created = await gateway.graphql(`mutation($csv: String!) { createPayoutBatchFromCsv(csv: $csv) { ${BATCH_FIELDS} } }`, { csv }, key);
    expect(created.body.errors).toBeUndefined();
    const draft = created.body.data.createPayoutBatchFromCsv;
    expect(draft).toMatchObject({ status: 'draft', itemCount: 20, validCount: 18 });
    expect(draft.errors).toEqual([
      { line: 4, field: 'amount', error: 'the amount must be a whole number of XOF' },
      { line: 9, field: 'method', error: 'unsupported payment method: paypal' },
    ]);
    const refused = await gateway.graphql(`mutation($id: ID!) { startPayoutBatch(id: $id) { status } }`, { id: draft.id }, key);
    expect(refused.body.errors[0].extensions.code).toBe('PAYOUT_BATCH_HAS_ERRORS');
    const started = await gateway.graphql(
      `mutation($id: ID!) { startPayoutBatch(id: $id, skipInvalidLines: true) { status counts { queued } } }`,
      { id: draft.id },
      key,
    );
    expect(started.body.data.startPayoutBatch).toEqual({ status: 'running', counts: { queued: 18 } });

    // Progress as the runner goes: stop it after a few items (as a shutdown would), read, go on.
    let items = 0;
    await runPayoutBatches(gateway.ctx, 'd0000000-0000-4000-8000-000000000001', { shouldStop: () => ++items > 5 });
    const midway = await gateway.graphql(`query($id: ID!) { payoutBatch(id: $id) { status counts { queued completed } } }`, { id: draft.id }, key);
    expect(midway.body.data.payoutBatch).toEqual({ status: 'running', counts: { queued: 13, completed: 5 } });
    await runPayoutBatches(gateway.ctx, 'd0000000-0000-4000-8000-000000000001');

    const read = await gateway.graphql(
      `query($id: ID!) { payoutBatch(id: $id) { status counts { completed } items(limit: 3, status: "completed") { items { line orderId status amount fees recipientLastName reference } pagination { totalCount } } } }`,
      { id: draft.id },
      key,
    );
    const batch = read.body.data.payoutBatch;
    expect(batch.status).toBe('completed');
    expect(batch.counts.completed).toBe(18);
    expect(batch.items.pagination.totalCount).toBe(18);
    expect(batch.items.items[0]).toMatchObject({ line: 1, status: 'completed', amount: 1_001, fees: 10, recipientLastName: 'Diop, fils', reference: 'REF-1' });

    const download = await fetch(`${gateway.url}/exports/payout-batches/${draft.id}/items.csv`, { headers: { authorization: `Bearer ${key}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = (await download.text()).trim().split('\r\n');
    expect(rows[0]).toBe(
      'line,order_id,payout_status,method,amount,fees,recipient_first_name,recipient_last_name,recipient_phone,reason,reference,failure_reason',
    );
    expect(rows).toHaveLength(19);
    expect(rows[1]).toMatch(/^1,[0-9a-f-]{36},completed,wave,1001,10,Awa,"Diop, fils",\+221771000001,Week 47,REF-1,$/);
    const other = await fundedMerchant(gateway);
    expect((await fetch(`${gateway.url}/exports/payout-batches/${draft.id}/items.csv`, { headers: { authorization: `Bearer ${other.key}` } })).status).toBe(
      404,
    );
  });

  it('refuses a CSV with a wrong header, a line too long, an unclosed quote, and a read key', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const upload = (csv: string, token = key) => gateway.graphql(`mutation($csv: String!) { createPayoutBatchFromCsv(csv: $csv) { id } }`, { csv }, token);
    const header = await upload('amount,method,phone\nwave,100,+221770000001');
    expect(header.body.errors[0].message).toMatch(/the CSV header must be exactly method,amount,phone,first_name,last_name,reason,reference/);
    const long = await upload(`${csvOf(1)}wave,100,+221770000001,${'x'.repeat(600)},,,\n`);
    expect(long.body.errors[0].message).toMatch(/CSV line 3 is longer than 512 characters/);
    const quote = await upload(`${csvOf(1)}wave,100,+221770000002,"Awa,,,,\n`);
    expect(quote.body.errors[0].message).toMatch(/CSV line 3 has an unclosed quote/);
    const readKey = await gateway.createKey(organization.id, 'read');
    expect((await upload(csvOf(1), readKey)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await gateway.ctx.db.payoutBatch.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});
