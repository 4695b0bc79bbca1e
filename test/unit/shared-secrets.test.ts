/**
 * How a host settles a shared secret against the fingerprint its peers recorded (sharedSecrets.ts),
 * with an in-memory store standing for the database: the cases two real processes cannot easily
 * produce (two hosts generating at the same instant, a stale value in the data folder).
 */
import { describe, expect, it } from 'vitest';
import { fingerprintMatches, fingerprintOf, resolveSharedSecret, type FingerprintStore, type LocalSecretSource } from '../../src/infra/sharedSecrets.js';

function memoryStore(): FingerprintStore & { rows: Map<string, string> } {
  const rows = new Map<string, string>();
  return {
    rows,
    read: async (name) => rows.get(name) ?? null,
    claim: async (name, fingerprint) => {
      if (!rows.has(name)) rows.set(name, fingerprint);
      return rows.get(name)!;
    },
  };
}

function folder(initial: string | null = null, generated = 'generated-value') {
  const state = { value: initial, discarded: false };
  const source: LocalSecretSource = {
    where: '/data/admin-token',
    read: async () => state.value,
    create: async () => {
      state.value = generated;
      return { value: generated, created: true };
    },
    discard: async () => {
      state.value = null;
      state.discarded = true;
    },
  };
  return { source, state };
}

describe('fingerprints', () => {
  it('match only the secret they were made from, and do not contain it', async () => {
    const fingerprint = await fingerprintOf('gw_op_secret_value');
    expect(fingerprint).not.toContain('gw_op_secret_value');
    expect(await fingerprintMatches('gw_op_secret_value', fingerprint)).toBe(true);
    expect(await fingerprintMatches('gw_op_secret_valuf', fingerprint)).toBe(false);
    expect(await fingerprintMatches('gw_op_secret_value', 'sha256$abc')).toBe(false);
    // Salted: the same secret never gives the same fingerprint twice.
    expect(await fingerprintOf('gw_op_secret_value')).not.toBe(fingerprint);
  });
});

describe('resolveSharedSecret', () => {
  it('without a shared database, behaves as before: environment, else data folder, else generated', async () => {
    expect(await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', 'from-env', folder('kept').source)).toEqual({ value: 'from-env', source: 'environment' });
    expect(await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', undefined, folder('kept').source)).toEqual({ value: 'kept', source: 'file' });
    expect(await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', undefined, folder().source)).toEqual({ value: 'generated-value', source: 'created' });
  });

  it('the first host records its value; a host whose data folder keeps another one refuses', async () => {
    const store = memoryStore();
    await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', undefined, folder().source, store);
    expect(await fingerprintMatches('generated-value', store.rows.get('GATEWAY_ADMIN_TOKEN')!)).toBe(true);
    // The same host again (its folder keeps the value) starts.
    expect((await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', undefined, folder('generated-value').source, store)).source).toBe('file');
    await expect(resolveSharedSecret('GATEWAY_ADMIN_TOKEN', undefined, folder('an older value').source, store)).rejects.toThrow(
      'GATEWAY_ADMIN_TOKEN is unset and the value kept in /data/admin-token differs from the one the other hosts sharing this database use: set GATEWAY_ADMIN_TOKEN to the same value on every host',
    );
  });

  it('of two hosts generating at the same instant, the second refuses and removes what it generated', async () => {
    const store = memoryStore();
    const first = folder(null, 'first-host');
    const second = folder(null, 'second-host');
    // Both looked before either recorded (the store was empty for both): simulate by recording after the second's read.
    const racing: FingerprintStore = { read: async () => null, claim: store.claim };
    await resolveSharedSecret('WEBHOOK_SECRET_KEY', undefined, first.source, racing);
    await expect(resolveSharedSecret('WEBHOOK_SECRET_KEY', undefined, second.source, racing)).rejects.toThrow(
      'WEBHOOK_SECRET_KEY is unset and another host sharing this database recorded its own value first: set WEBHOOK_SECRET_KEY to the same value on every host',
    );
    expect(second.state).toEqual({ value: null, discarded: true });
    expect(first.state.value).toBe('first-host');
  });
});
