/**
 * Dashboard passwords (src/domain/users/passwords.ts): argon2id at OWASP's minimum unless the
 * composition root says otherwise (only the in-process test gateways do), and verification by
 * the cost written in the stored hash.
 */
import { describe, expect, it } from 'vitest';
import { OWASP_PASSWORD_HASH_COST, hashPassword, verifyPassword } from '../../src/domain/users/passwords.js';

const SMALLEST = { memoryCost: 8, timeCost: 1 };

describe('password hashes', () => {
  it('are argon2id at OWASP’s minimum (19 MiB, 2 passes, 1 lane) by default', async () => {
    expect(OWASP_PASSWORD_HASH_COST).toEqual({ memoryCost: 19_456, timeCost: 2 });
    expect(await hashPassword('correct horse battery staple')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('are verified at the cost they were made with, whatever the cost asked for now', async () => {
    const small = await hashPassword('correct horse battery staple', SMALLEST);
    expect(small).toMatch(/^\$argon2id\$v=19\$m=8,t=1,p=1\$/);
    expect(await verifyPassword(small, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(small, 'correct horse battery stapler', SMALLEST)).toBe(false);
    const owasp = await hashPassword('another one');
    expect(await verifyPassword(owasp, 'another one', SMALLEST)).toBe(true);
  });

  it('refuse an unknown account (checked against a dummy hash of the cost asked for) and a malformed stored hash', async () => {
    expect(await verifyPassword(null, 'anything')).toBe(false);
    expect(await verifyPassword(null, 'anything', SMALLEST)).toBe(false);
    expect(await verifyPassword('not a hash', 'anything')).toBe(false);
  });
});
