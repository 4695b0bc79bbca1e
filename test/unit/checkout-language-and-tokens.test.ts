/** The checkout's two pure rules: which language a browser gets, and what a valid form token is. */
import { describe, expect, it } from 'vitest';
import { FORM_TOKEN_TTL_MS, createFormTokens } from '../../src/checkout/csrf.js';
import { pickLanguage } from '../../src/checkout/i18n.js';

describe('the checkout language', () => {
  it.each([
    [undefined, 'fr'],
    ['', 'fr'],
    ['fr-SN', 'fr'],
    ['en-US,en;q=0.9', 'en'],
    ['en-GB;q=0.8,fr;q=0.9', 'fr'],
    ['wo,en;q=0.7', 'en'],
    ['de-DE,es', 'fr'],
    ['en;q=0,fr;q=0.1', 'fr'],
    ['en, fr', 'en'],
    ['*', 'fr'],
    [`${'x;q=1,'.repeat(200)}en`, 'fr'],
  ])('Accept-Language %j -> %s', (header, lang) => {
    expect(pickLanguage(header)).toBe(lang);
  });

  it('lets ?lang=fr|en override the header and ignores anything else', () => {
    expect(pickLanguage('en', 'fr')).toBe('fr');
    expect(pickLanguage('fr', 'en')).toBe('en');
    expect(pickLanguage('en', ['fr'])).toBe('en');
    expect(pickLanguage(undefined, 'de')).toBe('fr');
  });
});

describe('checkout form tokens', () => {
  const orderId = '0a5bd4a6-6f0e-4bb3-9d0e-0d7c7b8f1a2b';
  const other = '5b1f0d8e-2f3c-4a7e-8e5d-1c2b3a4d5e6f';
  const now = new Date('2025-06-01T10:00:00Z');

  it('accepts its own token for the same order until it expires', () => {
    const tokens = createFormTokens();
    const token = tokens.issue(orderId, now);
    expect(tokens.verify(token, orderId, now)).toBe(true);
    expect(tokens.verify(token, orderId.toUpperCase(), now)).toBe(true);
    expect(tokens.verify(token, orderId, new Date(now.getTime() + FORM_TOKEN_TTL_MS - 1000))).toBe(true);
    expect(tokens.verify(token, orderId, new Date(now.getTime() + FORM_TOKEN_TTL_MS + 1000))).toBe(false);
  });

  it('refuses a token of another order, of another key, altered, or not a token at all', () => {
    const tokens = createFormTokens('a secret');
    const token = tokens.issue(orderId, now);
    const [expiry, mac] = token.split('.') as [string, string];
    expect(tokens.verify(tokens.issue(other, now), orderId, now)).toBe(false);
    expect(createFormTokens('another secret').verify(token, orderId, now)).toBe(false);
    expect(createFormTokens('a secret').verify(token, orderId, now)).toBe(true);
    expect(tokens.verify(`${Number(expiry) + 1}.${mac}`, orderId, now)).toBe(false);
    expect(tokens.verify(`${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, orderId, now)).toBe(false);
    expect(tokens.verify(`99999999999.${mac}`, orderId, now)).toBe(false);
    for (const junk of [undefined, null, '', 'abc', 42, `${token}x`, ['a']]) expect(tokens.verify(junk, orderId, now)).toBe(false);
  });
});
