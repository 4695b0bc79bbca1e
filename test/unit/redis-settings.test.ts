/**
 * The Redis settings. REDIS_KEY_PREFIX: deployments sharing one Redis keep their keys and channels
 * apart; the prefix reaching a gateway process's keys and channels is shown in
 * test/e2e/subscriptions-two-instances. REDIS_CALL_TIMEOUT_MS: the deadline of every coordination
 * call; that it bounds a call is shown in test/integration/platform/redis-outage.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('REDIS_KEY_PREFIX', () => {
  it('is gw: when unset, and taken as given otherwise', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('gw:');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'gw:staging:' }).redisKeyPrefix).toBe('gw:staging:');
  });

  it.each([
    ['empty', ''],
    ['with a space', 'gw staging:'],
    ['with a newline', 'gw:\n'],
    ['longer than 64 characters', 'g'.repeat(65)],
  ])('refuses a prefix %s, naming the variable', (_case, value) => {
    expect(() => loadConfig({ REDIS_KEY_PREFIX: value })).toThrow(/^REDIS_KEY_PREFIX must be 1 to 64 printable characters without spaces/);
  });
});

describe('REDIS_CALL_TIMEOUT_MS', () => {
  it('is 150 ms when unset, and taken as given from 10 to 5000', () => {
    expect(loadConfig({}).redisCallTimeoutMs).toBe(150);
    expect(loadConfig({ REDIS_CALL_TIMEOUT_MS: '10' }).redisCallTimeoutMs).toBe(10);
    expect(loadConfig({ REDIS_CALL_TIMEOUT_MS: '5000' }).redisCallTimeoutMs).toBe(5000);
  });

  it.each(['9', '5001', '1.5', 'soon'])('refuses %s, naming the variable and the range', (value) => {
    expect(() => loadConfig({ REDIS_CALL_TIMEOUT_MS: value })).toThrow(`REDIS_CALL_TIMEOUT_MS must be an integer from 10 to 5000 (got "${value}")`);
  });
});
