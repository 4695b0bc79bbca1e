/**
 * loadOnce (src/domain/loadOnce.ts): the lazy loads of GraphQL's server, GraphiQL's page, argon2,
 * the schema engine's WebAssembly and Orange Money's public key are made once, and a failed one is
 * tried again by the next caller instead of failing every caller until a restart.
 */
import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../src/domain/loadOnce.js';

/** A load whose calls the test answers one by one. */
function controlledLoad() {
  const calls: { args: unknown[]; resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const load = (...args: unknown[]) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ args, resolve, reject });
    });
  return { calls, load };
}

describe('loadOnce', () => {
  it('makes one load for callers that come while it runs and after it succeeded, with the first caller’s arguments', async () => {
    const { calls, load } = controlledLoad();
    const once = loadOnce(load);
    const first = once('first');
    const second = once('second');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args).toEqual(['first']);
    calls[0]!.resolve('loaded');
    expect(await Promise.all([first, second])).toEqual(['loaded', 'loaded']);
    expect(await once('third')).toBe('loaded');
    expect(calls).toHaveLength(1);
  });

  it('forgets a load that failed: its callers get the failure, the next caller loads again', async () => {
    const { calls, load } = controlledLoad();
    const once = loadOnce(load);
    const failing = once();
    calls[0]!.reject(new Error('EMFILE: too many open files'));
    await expect(failing).rejects.toThrow('EMFILE');
    const retried = once();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('loaded');
    expect(await retried).toBe('loaded');
    expect(await once()).toBe('loaded');
    expect(calls).toHaveLength(2);
  });

  it('forget() makes the next caller load again; an earlier load failing late does not drop the newer one', async () => {
    const { calls, load } = controlledLoad();
    const once = loadOnce(load);
    const stale = once();
    once.forget();
    const fresh = once();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('new key');
    calls[0]!.reject(new Error('revoked'));
    await expect(stale).rejects.toThrow('revoked');
    expect(await fresh).toBe('new key');
    expect(await once()).toBe('new key');
    expect(calls).toHaveLength(2);
  });
});
