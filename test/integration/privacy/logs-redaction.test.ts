/**
 * No phone number and no credential in the log: a real gateway process at LOG_LEVEL=info (every
 * request logged with its URL) is sent phones in the query (`customer_phone`, `recipient_phone` —
 * the spec's payout recovery query —, `phone`, `search`, an unnamed parameter) and API keys where
 * clients put them by mistake (`?api_key=`, `?token=`, `?access_token=`, `?secret=`, under any
 * name, in an X-Api-Key header, in the path), on REST v2, REST v1, GraphQL and an unknown route.
 * The captured output shows the requests were logged, with "[redacted]" in place of the phones,
 * and contains neither the phone digits nor any part of the key. A hostile pass then drives every
 * surface with fuzzed URLs, and the dashboard's sign-in with wrong passwords, phones and
 * credentials typed as the email or password, malformed bodies and credentials as X-Request-Id:
 * no answer is a 500, every answer is logged as completed, and the log holds no key, token,
 * password or phone.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, PASSWORD } from '../../support/dashboard.js';
import { leakyUrl, phoneForms } from '../../support/fuzz.js';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../../support/gateway.js';
import { startGatewayProcess, waitFor, type GatewayProcess } from '../../support/processes.js';

const gateway = useGateway();
const OPERATOR_TOKEN = 'gw_op_logs_redaction_test_0123456789abcdef';
let instance: GatewayProcess;
let key: string;

/** Distinctive digits: any of them in the log is a leak (the subscriber part, without the +221 prefix). */
const PHONES = ['771230001', '771230002', '771230003', '771230004', '771230005', '771230006', '771230007'];

beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'read' }));
  instance = await startGatewayProcess({
    DATABASE_URL: gateway.databaseUrl,
    LOG_LEVEL: 'info',
    GATEWAY_ADMIN_TOKEN: OPERATOR_TOKEN,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
  });
}, 90_000);
afterAll(async () => {
  await instance?.stop();
});

describe('the log of a gateway process at LOG_LEVEL=info', () => {
  it('carries the requests with phones redacted and credentials dropped, and neither phone digits nor key', async () => {
    const bearer = { authorization: `Bearer ${key}` };
    const calls: Array<[string, RequestInit, number]> = [
      [`/api/v2/payouts?recipient_phone=%2B221${PHONES[0]}&page=1`, { headers: bearer }, 200],
      [`/api/v2/transactions?customer_phone=221${PHONES[1]}&api_key=${key}&limit=5`, { headers: bearer }, 200],
      [`/api/v2/transactions?search=${PHONES[2]}&access_token=${encodeURIComponent(key)}`, { headers: bearer }, 200],
      [`/api/v1/transaction/get-transactions?phone=%2B221%20${PHONES[3]}&token=${key}`, { headers: bearer }, 200],
      [`/graphql?query=%7B__typename%7D&api_key=${key}&msisdn=${PHONES[4]}`, { headers: { ...bearer, 'x-api-key': key } }, 200],
      [`/nowhere?recipient_phone=${PHONES[5]}&secret=${key}`, {}, 404],
      [`/api/v2/transactions?api_key=${key}&ref=${PHONES[6]}&whatever=${key}`, {}, 401],
      [`/api/v2/${key}`, { headers: bearer }, 404],
    ];
    for (const [path, init, status] of calls) {
      expect((await fetch(`${instance.url}${path}`, init)).status, path).toBe(status);
    }

    // Every request was logged (so the absence below means something), its URL redacted.
    await waitFor(async () => instance.output().includes('/api/v2/[redacted]'), 5_000, instance.output);
    const log = instance.output();
    expect(log).toContain('"url":"/api/v2/payouts?recipient_phone=[redacted]&page=1"');
    expect(log).toContain('"url":"/api/v2/transactions?customer_phone=[redacted]&limit=5"');
    expect(log).toContain('"url":"/api/v2/transactions?search=[redacted]"');
    expect(log).toContain('"url":"/api/v1/transaction/get-transactions?phone=[redacted]"');
    expect(log).toContain('"url":"/graphql?query=%7B__typename%7D&msisdn=[redacted]"');
    expect(log).toContain('"url":"/nowhere?recipient_phone=[redacted]"');
    expect(log).toContain('"url":"/api/v2/transactions?ref=[redacted]"');

    for (const phone of PHONES) expect(log).not.toContain(phone);
    const secretPart = key.slice('gw_sk_'.length);
    expect(log).not.toContain(secretPart.slice(0, 12));
    expect(log).not.toContain(encodeURIComponent(secretPart).slice(0, 12));
    expect(log).not.toMatch(/authorization|x-api-key/i);
  }, 60_000);
});

/** One request sent byte for byte (fetch would normalise the path): its status (0 if refused on the wire), echoed request id, headers and body. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; requestId: string | undefined; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(instance.url);
  return new Promise((resolve) => {
    const request = http.request({ hostname, port, path, method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, requestId: response.headers['x-request-id'] as string | undefined, headers: response.headers, body: text }),
      );
    });
    request.on('error', () => resolve({ status: 0, requestId: undefined, headers: {}, body: '' }));
    request.end(body);
  });
}

/** A GET sent byte for byte: its status and echoed request id. */
const rawGet = (path: string, headers: Record<string, string>) => rawRequest('GET', path, headers);

const completions = (log: string): number => log.split('\n').filter((line) => line.includes('"msg":"request completed"')).length;

describe('a hostile pass over every surface, its log captured', () => {
  it('never logs nor echoes a key, a token, a webhook secret or a phone, wherever the request put them; every answer is logged as completed', async () => {
    const webhookSecret = `whsec_${randomBytes(32).toString('base64url')}`;
    const secrets = [key, OPERATOR_TOKEN, webhookSecret];
    const phones = ['781110001', '781110002', '781110003'];
    const urls = fc.sample(leakyUrl(['/api/v2', '/api/v2/transactions', '/api/v1/transaction', '/graphql', '/dashboard', '/nowhere'], secrets, phones), {
      seed: 20261127,
      numRuns: 150,
    });
    // The forms the probe used, whatever fast-check drew.
    urls.push(
      '/api/v2/transactions/%E0%A4%A', // a path that does not decode: 400, logged as completed too
      ...phoneForms(phones[0]!).map((form) => `/api/v2/transactions/${form}`),
      ...phoneForms(phones[1]!).map((form) => `/api/v2/transactions?${form}=1`),
      ...phoneForms(phones[2]!).map((form) => `/api/v1/transaction/get-transactions?${form}`),
    );
    // Counted by the ids the gateway answered with: a count of the whole log's completion lines
    // also took in a late line of the test before (179 for 178 answers, once, in a fresh-clone CI run).
    const answeredIds: string[] = [];
    for (const [index, url] of urls.entries()) {
      // Secrets as the request id too: never kept, never echoed.
      const requestId = secrets[index % secrets.length]!;
      const headers: Record<string, string> = { 'x-request-id': requestId };
      if (index % 2 === 0) headers.authorization = `Bearer ${key}`;
      const { status, requestId: echoed } = await rawGet(url, headers);
      if (status === 0) continue;
      expect(status, url).toBeLessThan(500);
      expect(echoed, url).not.toBe(requestId);
      expect(echoed, url).toBeTruthy();
      answeredIds.push(echoed!);
    }
    expect(answeredIds.length).toBeGreaterThan(urls.length / 2);
    const completedOf = (log: string): number => {
      const ids = new Set(answeredIds);
      return log.split('\n').filter((line) => line.includes('"msg":"request completed"') && ids.has(/"reqId":"([^"]+)"/.exec(line)?.[1] ?? '')).length;
    };
    await waitFor(
      async () => completedOf(instance.output()) >= answeredIds.length,
      10_000,
      () => `${completedOf(instance.output())} of ${answeredIds.length} logged`,
    );
    const log = instance.output();
    expect(completedOf(log), 'answers logged as completed').toBe(answeredIds.length);
    // The undecodable path's 400 has its completion line, like every answer.
    const badPath = await rawGet('/api/v2/transactions/%E0%A4%A', {});
    expect(badPath.status).toBe(400);
    expect(badPath.requestId).toBeTruthy();
    await waitFor(async () => instance.output().includes(`"reqId":"${badPath.requestId}","res"`), 5_000, instance.output);
    const badPathLines = instance
      .output()
      .split('\n')
      .filter((line) => line.includes(`"reqId":"${badPath.requestId}"`));
    expect(badPathLines.some((line) => line.includes('"msg":"request completed"') && line.includes('"statusCode":400'))).toBe(true);

    for (const secret of secrets) {
      const random = secret.slice(secret.indexOf('_', 3) + 1);
      expect(log, 'a secret in the log').not.toContain(random.slice(0, 12));
      expect(log, 'a secret in the log').not.toContain(encodeURIComponent(random).slice(0, 12));
    }
    for (const phone of phones) {
      for (const form of phoneForms(phone)) expect(log, `the phone form ${form} in the log`).not.toContain(form);
      const digitsOnly = log.replace(/%2B|%20|%28|%29|%25|[\s.()+-]/gi, '');
      expect(digitsOnly, `the phone ${phone} in the log`).not.toContain(phone);
    }
  }, 120_000);
});

describe('the dashboard’s sign-in, driven hostile over HTTP, its log captured', () => {
  it('answers every wrong password, hostile email, phone and body with a 4xx, and logs no key, token, password or phone', async () => {
    const { organization } = await gateway.merchant();
    const { email } = await member(gateway, organization.id, 'owner');
    const phones = ['781110011', '781110012', '781110013'];
    const wrongPassword = `wrong ${randomBytes(9).toString('base64url')}`;
    const json = { 'content-type': 'application/json' };
    const completedBefore = completions(instance.output());

    // A real sign-in first (the throttle below refuses the address's later attempts): its session
    // token and CSRF token must not reach the log either. The request id carries the API key.
    const signedIn = await rawRequest('POST', '/dashboard/auth/sign-in', { ...json, 'x-request-id': key }, JSON.stringify({ email, password: PASSWORD }));
    expect(signedIn.status, signedIn.body).toBe(200);
    expect(signedIn.requestId).not.toBe(key);
    const sessionToken = /gateway_session=([^;]+)/.exec(String(signedIn.headers['set-cookie']))![1]!;
    const csrfToken: string = JSON.parse(signedIn.body).csrfToken;
    const secrets = [key, OPERATOR_TOKEN, sessionToken, csrfToken, wrongPassword];

    // The sign-in throttle lets 20 attempts per address through (then 429): the real one, five wrong
    // passwords and the forms of one phone typed as the email reach the handler, the rest mostly 429.
    const forms = phoneForms(phones[0]!).map((form) => decodeURIComponent(form));
    const bodies: Array<[Record<string, string>, string]> = [
      // Wrong passwords, one carrying a credential, for the real account and for phones typed as the email.
      ...[wrongPassword, key, OPERATOR_TOKEN, `${PASSWORD} `, `+221${phones[0]}`].map((password): [Record<string, string>, string] => [
        json,
        JSON.stringify({ email, password }),
      ]),
      ...forms.map((form, index): [Record<string, string>, string] => [json, JSON.stringify({ email: form, password: secrets[index % secrets.length] })]),
      [json, JSON.stringify({ email: `${phones[1]}@shop.example.sn`, password: key })],
      [json, JSON.stringify({ email: key, password: OPERATOR_TOKEN })],
      [json, JSON.stringify({ email: `${email}\u0000${phones[2]}`, password: wrongPassword })],
      [json, JSON.stringify({ email: `\ud800${phones[1]}@shop.example.sn`, password: wrongPassword })],
      [json, JSON.stringify({ email: `"><script>alert(${phones[0]})</script>`, password: wrongPassword })],
      [json, JSON.stringify({ email: `${'a'.repeat(400)}${phones[1]}@x.sn`, password: `${key}${'p'.repeat(600)}` })],
      [json, JSON.stringify({ email: Number(phones[2]), password: null })],
      [json, JSON.stringify({ email: [`+221${phones[0]}`], password: { value: key } })],
      [json, JSON.stringify({ email: { $ne: null }, password: `+221${phones[1]}` })],
      [json, JSON.stringify([email, key])],
      [json, 'null'],
      [json, ''],
      // Not JSON, or not what it says: refused before the handler, the body never echoed.
      [json, `{"email": "+221${phones[2]}", "password": "${key}"`],
      [json, `${key} +221${phones[0]}`],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, `email=%2B221${phones[1]}&password=${encodeURIComponent(key)}`],
      [{ 'content-type': 'text/plain' }, `email=+221${phones[2]} password=${OPERATOR_TOKEN}`],
      [{ 'content-type': 'application/json; charset=utf-7' }, JSON.stringify({ email: `+221${phones[0]}`, password: key })],
      // Over the sign-in's 4 kB: 413 before parsing.
      [json, JSON.stringify({ email: `+221${phones[1]}`, password: key.repeat(200) })],
      // Another site's form.
      [{ ...json, origin: 'https://evil.example' }, JSON.stringify({ email, password: wrongPassword })],
    ];
    let answered = 0;
    const statuses = new Set<number>();
    for (const [index, [headers, body]] of bodies.entries()) {
      const requestId = secrets[index % secrets.length]!;
      const answer = await rawRequest('POST', '/dashboard/auth/sign-in', { ...headers, 'x-request-id': requestId }, body);
      if (answer.status === 0) continue;
      answered++;
      statuses.add(answer.status);
      expect(answer.status, body.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(answer.status, body.slice(0, 200)).toBeLessThan(500);
      expect(answer.requestId).not.toBe(requestId);
      for (const secret of secrets) expect(answer.body, 'a secret echoed').not.toContain(secret.slice(-16));
    }
    // The session and second-factor endpoints, a credential as the cookie and the code.
    for (const [method, path, headers, body] of [
      ['GET', '/dashboard/auth/session', { cookie: `gateway_session=${key}`, 'x-request-id': sessionToken }, undefined],
      // A phone as the request id: its digits are hex, and still not kept.
      ['GET', '/dashboard/auth/session', { 'x-request-id': phones[2]! }, undefined],
      ['GET', '/dashboard/auth/session', { 'x-request-id': `221${phones[0]}` }, undefined],
      [
        'POST',
        '/dashboard/auth/second-factor',
        { ...json, cookie: `gateway_session=${sessionToken}`, 'x-request-id': csrfToken },
        JSON.stringify({ code: phones[0] }),
      ],
      ['POST', '/dashboard/auth/second-factor', { ...json, cookie: `gateway_session=${OPERATOR_TOKEN}`, 'x-csrf-token': key }, JSON.stringify({ code: key })],
    ] as const) {
      const answer = await rawRequest(method, path, headers, body);
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
      answered++;
    }
    // Wrong credentials (401) until the address's budget ran out (429: sign-in throttling is on), bodies refused as such.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([401, 429]));
    answered++; // the real sign-in

    await waitFor(
      async () => completions(instance.output()) - completedBefore >= answered,
      10_000,
      () => `${completions(instance.output()) - completedBefore} of ${answered} logged`,
    );
    const log = instance.output();
    expect(completions(log) - completedBefore, 'answers logged as completed').toBe(answered);
    expect(log, 'an error logged (a 500 or an unexpected failure)').not.toMatch(/"level":50|"statusCode":5\d\d/);
    for (const secret of secrets) {
      expect(log, 'a secret in the log').not.toContain(secret.slice(-16));
      expect(log, 'a secret in the log').not.toContain(encodeURIComponent(secret).slice(-16));
    }
    for (const phone of phones) {
      const digitsOnly = log.replace(/%2B|%20|%28|%29|%25|[\s.()+-]/gi, '');
      expect(digitsOnly, `the phone ${phone} in the log`).not.toContain(phone);
    }
  }, 120_000);
});
