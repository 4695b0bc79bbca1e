/**
 * REDIS_KEY_PREFIX: deployments sharing one Redis keep their keys and channels apart. The prefix
 * reaching a gateway process's keys and channels is shown in test/e2e/subscriptions-two-instances.
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
