/**
 * Requests the HTTP layer itself refuses (node's parser, fastify's body reader) answer in the
 * shape of the surface they were sent to (v2 `{"error"}`, v1 `{"Detail"}`, GraphQL `{"errors"}`
 * with a code), never fastify's `{"error","message","statusCode"}`, and write nothing.
 */
import { connect } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintClient, stateFingerprint } from '../../support/fuzz.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
let client: pg.Client;
beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'readAndWrite', verified: true }));
  client = await fingerprintClient(gateway.databaseUrl);
});
afterAll(async () => {
  await client?.end();
});

/** Writes `request` on a fresh socket and reads the answer until the server closes (or 5 s). */
function exchange(request: Buffer | string): Promise<{ status: number; body: any; raw: string }> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      resolve({ status: Number(head.split(' ')[1] ?? 0), body, raw });
    });
    socket.write(request);
  });
}

const SURFACES = [
  { name: 'v2', path: '/api/v2/transactions', shape: (body: any) => expect(Object.keys(body)).toEqual(['error']) },
  { name: 'v1', path: '/api/v1/transaction/create-transaction', shape: (body: any) => expect(Object.keys(body)).toEqual(['Detail']) },
  {
    name: 'GraphQL',
    path: '/graphql',
    shape: (body: any) => {
      expect(Object.keys(body)).toEqual(['errors']);
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    },
  },
] as const;

const BROKEN_REQUESTS: [string, (path: string) => string, number][] = [
  [
    'a Content-Length that is not a number',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer @key\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
    400,
  ],
  [
    'two different Content-Lengths',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    400,
  ],
  [
    'Content-Length with chunked Transfer-Encoding',
    (path) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    400,
  ],
  [
    'a broken chunked body',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    400,
  ],
  ['headers over the size limit', (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ['a NUL in a header value', (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Odd: a\u0000b\r\n\r\n`, 400],
  ['a space in the header name', (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`, 400],
];

describe('the HTTP layer refuses in each surface’s own shape', () => {
  for (const surface of SURFACES) {
    it.each(BROKEN_REQUESTS)(`${surface.name}: %s`, async (_what, request, status) => {
      const before = await stateFingerprint(client);
      const answer = await exchange(request(surface.path).replace('@key', key));
      expect(answer.status, answer.raw.slice(0, 300)).toBe(status);
      surface.shape(answer.body);
      // An id to quote to support, as on every answer, though no request object ever existed.
      expect(answer.raw).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
      expect(await stateFingerprint(client)).toBe(before);
    });

    it(`${surface.name}: a body over the limit is 413, a body that is not JSON 400, a wrong content type 4xx`, async () => {
      const send = (body: Buffer, contentType: string) =>
        fetch(`${gateway.url}${surface.path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
          body: new Uint8Array(body),
        }).then(async (response) => ({
          status: response.status,
          body: await response.json(),
        }));
      const tooLarge = await send(Buffer.alloc(200 * 1024, 'x'), 'application/json');
      expect(tooLarge.status).toBe(413);
      surface.shape(tooLarge.body);
      const notJson = await send(Buffer.from('{"a":'), 'application/json');
      expect(notJson.status).toBe(400);
      surface.shape(notJson.body);
      const form = await send(Buffer.from('a=1'), 'application/x-www-form-urlencoded');
      expect(form.status).toBeGreaterThanOrEqual(400);
      expect(form.status).toBeLessThan(500);
      surface.shape(form.body);
    });
  }

  it('outside the surfaces, a broken request is the general {"error"} shape', async () => {
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Invalid request' });
    const garbage = await exchange('\u0000\u0001 nonsense\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ error: 'Invalid request' });
  });

  it('v1 answers carry its deprecation headers even when the parser refused the request', async () => {
    const answer = await exchange('POST /api/v1/transaction/create-transaction HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(answer.raw.toLowerCase()).toContain('deprecation:');
  });
});
