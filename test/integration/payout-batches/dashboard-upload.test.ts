/**
 * The dashboard's CSV upload (POST /dashboard/uploads/payout-batch, src/dashboard/uploads.ts): the
 * file as it is, with the dashboard session's cookie and CSRF token. A 5,000-line file, past the
 * 100 kB every other body (GraphQL's included) is held to, becomes a draft; the file's limits are
 * refused with errors that say them; who may upload is the access policy's, decided before the
 * body is read.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CSV_BYTES } from '../../../src/domain/payoutBatches/rules.js';
import { signedIn } from '../../support/dashboard.js';
import { useGateway } from '../../support/gateway.js';
import { fundedMerchant } from '../../support/payouts.js';

const gateway = useGateway();
const HEADER = 'method,amount,phone,first_name,last_name,reason,reference';

/** `count` valid lines, each a different recipient. */
function csvOf(count: number): string {
  const lines = [HEADER];
  for (let index = 1; index <= count; index += 1)
    lines.push(
      `${index % 2 ? 'wave' : 'orange_money'},${1_000 + (index % 500)},+22177${String(index).padStart(7, '0')},Chauffeur,${index},Semaine 47,REF-${index}`,
    );
  return `${lines.join('\n')}\n`;
}

async function owner() {
  const { organization } = await fundedMerchant(gateway, { balance: 20_000_000 });
  return { organization, browser: await signedIn(gateway, organization.id, 'owner') };
}

/** The upload as the dashboard sends it (its cookie and CSRF token, text/csv), each part overridable. */
function upload(
  session: { cookie?: string; csrfToken: string },
  body: string,
  headers: Record<string, string | undefined> = {},
): Promise<{ status: number; body: any }> {
  const sent: Record<string, string> = {};
  const all = { 'content-type': 'text/csv', cookie: session.cookie && `gateway_session=${session.cookie}`, 'x-csrf-token': session.csrfToken, ...headers };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) sent[name] = value;
  return fetch(`${gateway.url}/dashboard/uploads/payout-batch`, { method: 'POST', headers: sent, body }).then(async (response) => ({
    status: response.status,
    body: await response.json(),
  }));
}

describe('the dashboard’s payout batch CSV upload', () => {
  it('takes a 5,000-line file (past GraphQL’s 100 kB bodies) into a draft of 5,000 valid lines', async () => {
    const { organization, browser } = await owner();
    const csv = csvOf(5_000);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(100 * 1024);
    // Why the route: the same file in a GraphQL mutation is past the API's body limit.
    const viaGraphql = await browser.request('POST', '/graphql', {
      body: { query: 'mutation($csv: String!) { createPayoutBatchFromCsv(csv: $csv) { id } }', variables: { csv } },
    });
    expect(viaGraphql.status).toBe(413);

    const answer = await upload(browser, csv);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
    expect(answer.body).toMatchObject({ status: 'draft', item_count: 5_000, valid_count: 5_000, errors: [] });
    expect(await gateway.ctx.db.payoutBatchItem.count({ where: { batchId: answer.body.id } })).toBe(5_000);
    expect((await gateway.ctx.db.payoutBatch.findUniqueOrThrow({ where: { id: answer.body.id } })).organizationId).toBe(organization.id);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('refuses, saying the limit: a file past 1 MiB (413), 5,001 lines, a line past 512 characters, a wrong header or a NUL (400), another media type (415)', async () => {
    const { organization, browser } = await owner();
    const tooLarge = await upload(browser, `${HEADER}\n${'x'.repeat(MAX_CSV_BYTES)}\n`);
    expect(tooLarge).toEqual({ status: 413, body: { error: 'The CSV file is larger than 1048576 bytes (1 MiB): split it into several batches' } });
    expect(await upload(browser, csvOf(5_001))).toEqual({ status: 400, body: { error: 'Invalid input: a batch holds at most 5000 items' } });
    expect(await upload(browser, `${csvOf(2)}wave,100,+221770000001,${'x'.repeat(600)},,,\n`)).toEqual({
      status: 400,
      body: { error: 'Invalid input: CSV line 4 is longer than 512 characters' },
    });
    expect((await upload(browser, 'amount,method,phone\nwave,100,+221770000001\n')).body.error).toMatch(/the CSV header must be exactly method,amount,phone/);
    expect((await upload(browser, csvOf(1), { 'content-type': 'application/json' })).status).toBe(415);
    // Text PostgreSQL cannot store (a NUL, in a name or as a method): 400, not the 500 of a failed insert.
    for (const row of ['wave,100,+221770000001,Awa\u0000,,,', 'wave\u0000,100,+221770000001,,,,'])
      expect(await upload(browser, `${HEADER}\n${row}\n`)).toEqual({ status: 400, body: { error: 'Invalid input: the CSV file contains a NUL character' } });
    expect(await gateway.ctx.db.payoutBatch.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('refuses without a session, without its CSRF token, from another origin, and a viewer; a stranger’s large body is not read', async () => {
    const { organization, browser } = await owner();
    const viewer = await signedIn(gateway, organization.id, 'viewer');
    expect(await upload({ csrfToken: browser.csrfToken }, csvOf(1))).toEqual({ status: 401, body: { error: expect.any(String) } });
    // Refused on its headers, before its megabyte is read: 401, not 413.
    expect((await upload({ csrfToken: '' }, 'x'.repeat(MAX_CSV_BYTES + 1))).status).toBe(401);
    expect((await upload(browser, csvOf(1), { 'x-csrf-token': undefined })).status).toBe(403);
    expect((await upload(browser, csvOf(1), { origin: 'https://elsewhere.example' })).status).toBe(403);
    const byViewer = await upload(viewer, csvOf(1));
    expect(byViewer.status).toBe(403);
    expect(await gateway.ctx.db.payoutBatch.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});
