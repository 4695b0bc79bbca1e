/**
 * The dashboard's HTTP side (src/dashboard/app.ts), without a browser: the HTML shell for every
 * client-side route (never cached, a strict Content-Security-Policy, the language of the browser),
 * and the hashed bundle and stylesheet (precompressed brotli and gzip, cached for a year as
 * immutable). Needs the build (`node scripts/build.mjs --quiet`), as the gateway serves dist/.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, pickEncoding } from '../../src/dashboard/app.js';
import { useGateway } from '../support/gateway.js';

const gateway = useGateway();

const MANIFEST = JSON.parse(readFileSync(new URL('../../dist/dashboard/assets/manifest.json', import.meta.url), 'utf8')) as { js: string; css: string };

/** A raw GET (fetch would decompress and hide Content-Encoding's effect on the bytes). */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const CSP_DIRECTIVES = (header: string) =>
  Object.fromEntries(
    header
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  );

describe('the dashboard shell', () => {
  it.each(['/dashboard', '/dashboard/', '/dashboard/sign-in', '/dashboard/transactions/ord_123', '/dashboard/invitation'])(
    '%s answers the HTML shell, never cached, with a strict policy',
    async (path) => {
      const response = await rawGet(path);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-frame-options']).toBe('DENY');
      const csp = CSP_DIRECTIVES(String(response.headers['content-security-policy']));
      expect(csp).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'style-src': "'self'",
        'frame-ancestors': "'none'",
        'form-action': "'self'",
        'base-uri': "'none'",
      });
      const html = response.body.toString('utf8');
      // No inline script or style: the policy would refuse them anyway.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style=/);
      expect(html).toContain(`<script type="module" src="/dashboard/assets/${MANIFEST.js}"></script>`);
      expect(html).toContain(`<link rel="stylesheet" href="/dashboard/assets/${MANIFEST.css}">`);
    },
  );

  it('speaks the browser’s language: French by default and for French, English when preferred, ?lang= over both', async () => {
    const langOf = async (path: string, acceptLanguage?: string) =>
      (await rawGet(path, acceptLanguage ? { 'accept-language': acceptLanguage } : {})).body.toString('utf8').match(/<html lang="(\w+)">/)?.[1];
    expect(await langOf('/dashboard')).toBe('fr');
    expect(await langOf('/dashboard', 'fr-SN,fr;q=0.9,en;q=0.5')).toBe('fr');
    expect(await langOf('/dashboard', 'en-GB,en;q=0.9,fr;q=0.4')).toBe('en');
    expect(await langOf('/dashboard?lang=fr', 'en-GB')).toBe('fr');
    expect(await langOf('/dashboard/sign-in?lang=en')).toBe('en');
  });

  it('leaves the API alone: /graphql and the REST roots are not the shell', async () => {
    const api = await rawGet('/api/v2/transactions');
    expect(api.status).toBe(401);
    expect(String(api.headers['content-type'])).toContain('application/json');
    expect((await rawGet('/dashboardx')).status).toBe(404);
  });
});

describe('the dashboard assets', () => {
  it.each([
    ['js', 'text/javascript; charset=utf-8'],
    ['css', 'text/css; charset=utf-8'],
  ] as const)('the %s file is served brotli, gzip or plain as asked, the same bytes each way, immutable for a year', async (kind, type) => {
    const path = `/dashboard/assets/${MANIFEST[kind]}`;
    expect(MANIFEST[kind]).toMatch(new RegExp(`^main-[A-Z0-9]{8}\\.${kind}$`));
    const plain = await rawGet(path);
    const br = await rawGet(path, { 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await rawGet(path, { 'accept-encoding': 'gzip' });
    const refusedBr = await rawGet(path, { 'accept-encoding': 'br;q=0, gzip' });
    for (const response of [plain, br, gzip, refusedBr]) {
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers.vary).toBe('accept-encoding');
    }
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(refusedBr.headers['content-encoding']).toBe('gzip');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    // Compression pays: the bundle goes in well under half its size.
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('the bundle is small enough for a phone on a slow network (under 60 kB brotli)', async () => {
    const br = await rawGet(`/dashboard/assets/${MANIFEST.js}`, { 'accept-encoding': 'br' });
    expect(br.body.length).toBeLessThan(60_000);
  });

  it('an unknown asset is a 404, not cached, and no file outside the build is reachable', async () => {
    for (const path of [
      '/dashboard/assets/main-AAAAAAAA.js',
      '/dashboard/assets/manifest.json',
      '/dashboard/assets/..%2F..%2Fpackage.json',
      `/dashboard/assets/${MANIFEST.js}.br`,
    ]) {
      const response = await rawGet(path);
      expect(response.status, path).toBe(404);
      expect(response.headers['cache-control'], path).toBe('no-store');
    }
  });
});

describe('choosing the encoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['br;q=0.0, gzip;q=0', null],
    ['BR', 'br'],
  ] as const)('Accept-Encoding %s -> %s', (header, expected) => {
    expect(pickEncoding(header)).toBe(expected);
  });

  it('the policy the shell sends is the one the module exports', () => {
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe');
  });
});
