/** Sign-in throttling: per account (whatever the address) and per client address (whatever the account), 429 with Retry-After. */
import { describe, expect, it } from 'vitest';
import { SIGN_IN_PER_ACCOUNT, SIGN_IN_PER_ADDRESS } from '../../../src/domain/users/throttle.js';
import { DashboardBrowser, PASSWORD, member, newEmail } from '../../support/dashboard.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

describe('sign-in throttling', () => {
  it('refuses an account after its attempts, even with the right password, with Retry-After', async () => {
    const organization = await gateway.createOrganization({});
    const { email } = await member(gateway, organization.id);
    for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT.max; attempt += 1) {
      expect((await new DashboardBrowser(gateway).signIn(email, 'wrong password, again')).status).toBe(401);
    }
    const throttled = await new DashboardBrowser(gateway).signIn(email, PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ error: 'Too many sign-in attempts. Try again later.' });
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_PER_ACCOUNT.windowMs / 1000);
    expect(throttled.headers.get('set-cookie')).toBeNull();
  });

  it('refuses one address trying many accounts (unknown ones too)', async () => {
    // The address is the socket's (127.0.0.1), shared by this file's other test: count what is left.
    let status = 0;
    for (let attempt = 0; attempt <= SIGN_IN_PER_ADDRESS.max && status !== 429; attempt += 1) {
      status = (await new DashboardBrowser(gateway).signIn(newEmail('nobody'), PASSWORD)).status;
    }
    expect(status).toBe(429);
  });
});
