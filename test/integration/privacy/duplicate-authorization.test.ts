/**
 * A request with two Authorization headers is refused with 401 on every surface (REST v2, REST v1,
 * GraphQL), whichever comes first and even when both carry the same valid key: Node keeps only
 * the first in `headers.authorization`, so without a look at the raw headers the first would win
 * (a proxy's header and a client's, or a smuggling attempt, judged by whichever came first).
 */
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'read' }));
});

/** Sends each value in `authorizations` as its own Authorization header line. */
function send(method: string, path: string, authorizations: string[], body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${gateway.url}${path}`, { method }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    request.on('error', reject);
    if (authorizations.length) request.setHeader('Authorization', authorizations.length === 1 ? authorizations[0]! : authorizations);
    if (body !== undefined) request.setHeader('content-type', 'application/json');
    request.end(body);
  });
}

const SURFACES = [
  { name: 'REST v2', call: (auth: string[]) => send('GET', '/api/v2/transactions', auth), refusal: { error: 'Invalid API key' } },
  { name: 'REST v1', call: (auth: string[]) => send('GET', '/api/v1/transaction/get-transactions', auth), refusal: { Detail: 'Invalid API key' } },
  {
    name: 'GraphQL',
    call: (auth: string[]) => send('POST', '/graphql', auth, JSON.stringify({ query: '{ __typename }' })),
    refusal: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) })] },
  },
];

describe.each(SURFACES)('$name with two Authorization headers', ({ call, refusal }) => {
  it('answers 200 with one header (the control)', async () => {
    expect((await call([`Bearer ${key}`])).status).toBe(200);
  });

  it('answers 401 when both carry the same valid key', async () => {
    const answer = await call([`Bearer ${key}`, `Bearer ${key}`]);
    expect(answer).toEqual({ status: 401, body: expect.objectContaining(refusal) });
  });

  it('answers 401 whichever of a valid and an unknown key comes first', async () => {
    const unknown = 'Bearer gw_sk_not_a_real_key_0000000000000000000000000';
    expect((await call([`Bearer ${key}`, unknown])).status).toBe(401);
    expect((await call([unknown, `Bearer ${key}`])).status).toBe(401);
  });

  it('answers 401 when the second header is empty', async () => {
    expect((await call([`Bearer ${key}`, ''])).status).toBe(401);
  });
});
