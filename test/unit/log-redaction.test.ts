/**
 * What reaches a log line from a URL or an error: personal query values redacted by name (or by
 * looking like a phone number), credential-like parameters and our own key prefixes dropped, and
 * the same in error messages and stacks that quote a URL.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { redactText, redactUrl, serializeError, serializeRequest } from '../../src/http/logging.js';

describe('redactUrl', () => {
  it.each([
    ['/api/v2/payouts?recipient_phone=%2B221771234567&page=1', '/api/v2/payouts?recipient_phone=[redacted]&page=1'],
    ['/api/v2/transactions?customer_phone=221771234567&status=paid', '/api/v2/transactions?customer_phone=[redacted]&status=paid'],
    ['/api/v2/transactions?search=Awa%20Diop', '/api/v2/transactions?search=[redacted]'],
    ['/x?Phone=1&MSISDN=2&email=a%40b.sn&customer_name=Awa', '/x?Phone=[redacted]&MSISDN=[redacted]&email=[redacted]&customer_name=[redacted]'],
    ['/x?api_key=abc&limit=5', '/x?limit=5'],
    ['/x?apiKey=abc&API-KEY=d&key=e&token=f&access_token=g&refresh_token=h&secret=i&client_secret=j&password=k&auth=l&signature=m&sig=n&session=o', '/x'],
    ['/x?note=gw_sk_abcdefghijklmnop&a=1', '/x?a=1'],
    ['/x?note=%67w_sk_abcdefghijklmnop', '/x'],
    ['/api/v2/gw_sk_abcdefghijklmnop/x', '/api/v2/[redacted]/x'],
    ['/x?ref=%2B221%2077%20123%2045%2067', '/x?ref=[redacted]'],
    ['/x?amount=1500000&page=2&order_id=3f1e1a0c-8c4b-4c9e-9f43-0a4d2b2f0c11', '/x?amount=1500000&page=2&order_id=3f1e1a0c-8c4b-4c9e-9f43-0a4d2b2f0c11'],
    ['/x?a=1#token=abc', '/x?a=1'],
    ['/x?%ZZ=1&phone', '/x?%ZZ=1&phone'],
    ['/healthz', '/healthz'],
    // Phones in path segments: raw +, encoded, doubly encoded, spaced, bare local numbers; UUIDs stay.
    ['/api/v2/transactions/+221771234567', '/api/v2/transactions/[redacted]'],
    ['/api/v2/transactions/%2B221771234567/x', '/api/v2/transactions/[redacted]/x'],
    ['/api/v2/transactions/%252B221771234567', '/api/v2/transactions/[redacted]'],
    ['/api/v2/transactions/%2B221%2077%20123%2045%2067', '/api/v2/transactions/[redacted]'],
    ['/api/v2/transactions/77-123-45-67', '/api/v2/transactions/[redacted]'],
    ['/api/v2/transactions/771234567', '/api/v2/transactions/[redacted]'],
    ['/api/v2/transactions/12345678-1234-4234-8234-123456789012', '/api/v2/transactions/12345678-1234-4234-8234-123456789012'],
    // Phones as a parameter's name; webhook secrets anywhere.
    ['/x?%2B221771234567=1&a=2', '/x?[redacted]=[redacted]&a=2'],
    ['/x?771234567', '/x?[redacted]'],
    ['/hooks/whsec_abcdefghijklmnop?s=whsec_zz', '/hooks/[redacted]'],
  ])('%s -> %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

describe('error and request serializers', () => {
  it('redact a URL quoted in an error message and stack', () => {
    const error = new Error('fetch failed for https://api.example.sn/hook?token=s3cr3t&phone=771234567');
    const serialized = serializeError(error) as { message: string; stack: string };
    expect(serialized.message).toBe('fetch failed for https://api.example.sn/hook?phone=[redacted]');
    expect(serialized.stack).not.toMatch(/s3cr3t|771234567/);
    expect(redactText('key gw_op_abcdef123 leaked')).toBe('key [redacted] leaked');
  });

  it('log a request as method, redacted URL and peer, never its headers', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _encoding, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const log = pino({ serializers: { req: serializeRequest, err: serializeError } }, sink);
    log.info(
      { req: { method: 'GET', url: '/api/v2/payouts?recipient_phone=771234567&api_key=k', ip: '10.0.0.1', headers: { authorization: 'Bearer gw_sk_x' } } },
      'incoming request',
    );
    expect(JSON.parse(lines[0]!).req).toEqual({ method: 'GET', url: '/api/v2/payouts?recipient_phone=[redacted]', remoteAddress: '10.0.0.1' });
  });
});

describe('errors carrying personal data in any field', () => {
  it('hide phone numbers written in free text, with or without separators', () => {
    expect(redactText('wallet refused +221771234567')).toBe('wallet refused [redacted]');
    expect(redactText('call 77 123 45 67 or 77.123.45.67')).not.toMatch(/\d{2}[ .]\d{3}[ .]\d{2}/);
    expect(redactText('amount 2000000 XOF')).toBe('amount 2000000 XOF');
  });

  it('redact every string of a serialized error: PostgreSQL detail, Prisma meta, nested causes', () => {
    const error = Object.assign(new Error('insert failed'), {
      detail: 'Failing row contains (payout, +221770000001, 5000)',
      meta: { target: '/api/v2/payouts?api_key=gw_sk_abcdefghijklmnop', phone: '+221771234567' },
      cause: { message: 'key gw_op_secretsecretsecret leaked' },
    });
    const logged = JSON.stringify(serializeError(error));
    expect(logged).not.toMatch(/221770000001|221771234567|gw_sk_abc|gw_op_secret|api_key/);
    expect(logged).toContain('insert failed');
  });
});

describe('X-Request-Id', () => {
  it('is kept only as a UUID or 8 to 64 hex digits (not decimal digits alone: a phone), never a credential', async () => {
    const { acceptedRequestId } = await import('../../src/http/app.js');
    const token = 'a'.repeat(40);
    expect(acceptedRequestId('3f1e1a0c-8c4b-4c9e-9f43-0a4d2b2f0c11', null)).toBe('3f1e1a0c-8c4b-4c9e-9f43-0a4d2b2f0c11');
    expect(acceptedRequestId('5f0c9a1e2b3d4c5e6f708192a3b4c5d6', null)).toBe('5f0c9a1e2b3d4c5e6f708192a3b4c5d6');
    for (const refused of [
      'gw_sk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
      'whsec_abc',
      'trace-abc.123',
      'abc',
      'f'.repeat(65),
      // A phone number's digits are hex too.
      '771230001',
      '221771230001',
      '',
      ['a', 'b'],
      undefined,
    ]) {
      expect(acceptedRequestId(refused, null), String(refused)).toBeNull();
    }
    expect(acceptedRequestId(token, token)).toBeNull();
  });
});
