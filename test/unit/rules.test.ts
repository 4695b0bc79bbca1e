import { describe, expect, it } from 'vitest';
import { parseBearer } from '../../src/domain/access/auth.js';
import { DomainError } from '../../src/domain/errors.js';
import { resolvePage, toPage } from '../../src/domain/pagination.js';
import { startOfUtcMonth } from '../../src/domain/money.js';
import { parsePaymentMethod } from '../../src/domain/paymentMethods.js';
import { normalizePhone } from '../../src/domain/phones.js';
import { validateRedirectUrl } from '../../src/domain/urls.js';

const codeOf = (action: () => unknown): string | undefined => {
  try {
    action();
  } catch (error) {
    return error instanceof DomainError ? error.code : 'not a domain error';
  }
  return undefined;
};

describe('parseBearer', () => {
  it('reads the token of a Bearer header, whatever the case of the scheme', () => {
    expect(parseBearer('Bearer gw_sk_abc')).toBe('gw_sk_abc');
    expect(parseBearer('bearer gw_sk_abc')).toBe('gw_sk_abc');
  });
  it('refuses missing, other-scheme, empty, spaced and oversized tokens', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', `Bearer ${'x'.repeat(257)}`]) {
      expect(parseBearer(header), String(header)).toBeNull();
    }
  });
});

describe('validateRedirectUrl', () => {
  it('accepts absolute http and https addresses', () => {
    expect(validateRedirectUrl('https://shop.sn/merci?order=1')).toBe('https://shop.sn/merci?order=1');
    expect(validateRedirectUrl('http://localhost:8080/ok')).toBe('http://localhost:8080/ok');
  });
  it('refuses percent-encoded characters before anything else', () => {
    expect(codeOf(() => validateRedirectUrl('https://shop.sn/a%20b'))).toBe('encoded_url');
    expect(codeOf(() => validateRedirectUrl('not a url %2F'))).toBe('encoded_url');
  });
  it('refuses what is not an absolute http(s) address', () => {
    for (const url of ['shop.sn/merci', 'ftp://shop.sn', 'javascript:alert(1)', '/relative', `https://x.sn/${'a'.repeat(2048)}`]) {
      expect(
        codeOf(() => validateRedirectUrl(url)),
        url,
      ).toBe('invalid_url');
    }
  });
});

describe('normalizePhone', () => {
  it('keeps international numbers, dropping spaces and dashes', () => {
    expect(normalizePhone('+221 77 123-45-67')).toBe('+221771234567');
  });
  it('refuses numbers without the plus sign, too short or too long', () => {
    for (const phone of ['221771234567', '+2217', '+2217712345678901', '+22177abc4567']) {
      expect(
        codeOf(() => normalizePhone(phone)),
        phone,
      ).toBe('invalid_phone');
    }
  });
});

describe('parsePaymentMethod', () => {
  it('knows exactly wave and orange_money', () => {
    expect(parsePaymentMethod('wave')).toBe('wave');
    expect(parsePaymentMethod('orange_money')).toBe('orange_money');
    for (const method of ['WAVE', 'bank', 'free_money', '']) expect(codeOf(() => parsePaymentMethod(method))).toBe('unsupported_payment_method');
  });
});

describe('pages', () => {
  it('defaults to page 1 of 20 and caps the limit at 100', () => {
    expect(resolvePage({})).toEqual({ page: 1, limit: 20, skip: 0 });
    expect(resolvePage({ page: 3, limit: 500 })).toEqual({ page: 3, limit: 100, skip: 200 });
  });
  it('refuses pages and limits below 1 or not whole', () => {
    for (const request of [{ page: 0 }, { limit: 0 }, { page: -1 }, { page: 1.5 }, { page: 100_001 }]) {
      expect(
        codeOf(() => resolvePage(request)),
        JSON.stringify(request),
      ).toBe('invalid_query');
    }
  });
  it('counts whole pages, and none for an empty list', () => {
    expect(toPage([], 0, 1, 20).totalPages).toBe(0);
    expect(toPage([], 41, 1, 20).totalPages).toBe(3);
  });
});

describe('startOfUtcMonth', () => {
  it('is the first instant of the UTC month, whatever the local time zone', () => {
    expect(startOfUtcMonth(new Date('2026-03-31T23:59:59.999Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(startOfUtcMonth(new Date('2026-04-01T00:00:00.000Z')).toISOString()).toBe('2026-04-01T00:00:00.000Z');
  });
});

describe('the provider flow asks about an open call with backoff', () => {
  it('doubles the pause from the first-ask age, capped at an hour', async () => {
    const { recheckDelayMs, MAX_RECHECK_MS } = await import('../../src/domain/providerFlow.js');
    expect(recheckDelayMs(1, 60_000)).toBe(120_000);
    expect(recheckDelayMs(2, 60_000)).toBe(240_000);
    expect(recheckDelayMs(30, 60_000)).toBe(MAX_RECHECK_MS);
    expect(recheckDelayMs(3, 0)).toBe(0);
  });

  it('treats deadlocks and dropped connections as transient, and a broken rule as not', async () => {
    const { isTransientDatabaseError } = await import('../../src/domain/providerFlow.js');
    expect(isTransientDatabaseError({ code: '40P01' })).toBe(true);
    expect(isTransientDatabaseError({ code: 'P2010', meta: { code: '40P01' } })).toBe(true);
    expect(isTransientDatabaseError({ code: '57P01' })).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError({ code: '23505' })).toBe(false);
    expect(isTransientDatabaseError(new Error('refund vanished'))).toBe(false);
  });

  it('answers a request whose database link failed with the retryable 503, and anything unknown with the 500 of a bug', async () => {
    const { toPublicError, retryAfterSecondsOf } = await import('../../src/rest/errors.js');
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const answer = toPublicError(terminated);
    expect(answer).toEqual({
      status: 503,
      message: 'The service is temporarily unavailable, please try again shortly',
      code: 'database_unavailable',
      unexpected: false,
    });
    expect(retryAfterSecondsOf(answer)).toBe(1);
    expect(toPublicError(new Error('refund vanished'))).toMatchObject({ status: 500, code: 'internal', unexpected: true });
  });
});
