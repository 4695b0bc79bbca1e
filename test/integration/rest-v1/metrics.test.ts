/** /metrics counts v1 calls per API key id, so an operator sees who still calls v1. */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { createdV1, v1 } from './helpers.js';

const gateway = useGateway({ metrics: true });

const scrape = async () => (await fetch(`${gateway.url}/metrics`)).text();
/** The value of one series, or undefined. */
const seriesValue = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const keyIdOf = async (organizationId: string) => (await gateway.ctx.db.apiKey.findFirstOrThrow({ where: { organizationId } })).id;

describe('rest_v1_requests_total', () => {
  it('counts authorised v1 calls per API key id and v1 route, never showing the secret; v2 calls are not counted', async () => {
    const first = await gateway.merchant();
    const second = await gateway.merchant();
    const created = await createdV1(gateway, first.key);
    await v1.getOne(gateway, first.key, created.order_id);
    await v1.getOne(gateway, first.key, crypto.randomUUID());
    await v1.list(gateway, second.key);
    await gateway.rest('GET', '/api/v2/transactions', { key: second.key });
    await v1.list(gateway, 'gw_sk_not_a_key');

    const text = await scrape();
    const [firstId, secondId] = [await keyIdOf(first.organization.id), await keyIdOf(second.organization.id)];
    expect(seriesValue(text, `rest_v1_requests_total{api_key="${firstId}",route="createTransaction"}`)).toBe(1);
    // A 404 is still a v1 call by that key.
    expect(seriesValue(text, `rest_v1_requests_total{api_key="${firstId}",route="getTransaction"}`)).toBe(2);
    expect(seriesValue(text, `rest_v1_requests_total{api_key="${secondId}",route="listTransactions"}`)).toBe(1);
    expect(text.match(new RegExp(`rest_v1_requests_total\\{api_key="${secondId}"`, 'g'))).toHaveLength(1);
    for (const secret of [first.key, second.key, 'gw_sk_not_a_key']) expect(text).not.toContain(secret);
  });
});
