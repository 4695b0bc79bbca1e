/**
 * The breaker in front of Redis coordination: opens after consecutive failures, fails fast while
 * open, lets one probe through after the cool-down, closes on the probe's success.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CoordinatorUnavailableError, type BreakerState } from '../../src/infra/redis/circuitBreaker.js';

function setup(overrides: Partial<ConstructorParameters<typeof CircuitBreaker>[0]> = {}) {
  let now = 1_000_000;
  const changes: string[] = [];
  const breaker = new CircuitBreaker({
    failureThreshold: 3,
    coolDownMs: 1_000,
    timeoutMs: 50,
    now: () => now,
    onStateChange: (from: BreakerState, to: BreakerState) => changes.push(`${from}->${to}`),
    ...overrides,
  });
  let calls = 0;
  const ok = () =>
    breaker.run(async () => {
      ++calls;
      return 'ok';
    });
  const fail = () =>
    breaker.run(async () => {
      ++calls;
      throw new Error('connection refused');
    });
  return { breaker, ok, fail, changes, calls: () => calls, advance: (ms: number) => (now += ms) };
}

describe('circuit breaker', () => {
  it('stays closed below the threshold, and a success resets the count', async () => {
    const { breaker, ok, fail } = setup();
    await expect(fail()).rejects.toThrow('connection refused');
    await expect(fail()).rejects.toThrow('connection refused');
    await expect(ok()).resolves.toBe('ok');
    await expect(fail()).rejects.toThrow('connection refused');
    await expect(fail()).rejects.toThrow('connection refused');
    expect(breaker.state).toBe('closed');
  });

  it('opens after N consecutive failures and then fails without calling', async () => {
    const { breaker, ok, fail, calls, changes } = setup();
    for (let i = 0; i < 3; i++) await expect(fail()).rejects.toThrow('connection refused');
    expect(breaker.state).toBe('open');
    const before = calls();
    await expect(ok()).rejects.toBeInstanceOf(CoordinatorUnavailableError);
    expect(calls()).toBe(before); // the work never ran
    expect(changes).toEqual(['closed->open']);
  });

  it('after the cool-down lets one probe through: success closes it', async () => {
    const { breaker, ok, fail, advance, changes } = setup();
    for (let i = 0; i < 3; i++) await fail().catch(() => undefined);
    advance(999);
    await expect(ok()).rejects.toBeInstanceOf(CoordinatorUnavailableError);
    advance(1);
    expect(breaker.state).toBe('half-open');
    await expect(ok()).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it('a failed probe opens it again for a whole cool-down', async () => {
    const { breaker, ok, fail, advance } = setup();
    for (let i = 0; i < 3; i++) await fail().catch(() => undefined);
    advance(1_000);
    await expect(fail()).rejects.toThrow('connection refused'); // one failure is enough in half-open
    expect(breaker.state).toBe('open');
    advance(500);
    await expect(ok()).rejects.toBeInstanceOf(CoordinatorUnavailableError);
    advance(500);
    await expect(ok()).resolves.toBe('ok');
  });

  it('only one probe at a time: concurrent calls fail fast while it is in flight', async () => {
    const { breaker, fail, advance } = setup();
    for (let i = 0; i < 3; i++) await fail().catch(() => undefined);
    advance(1_000);
    let finish!: () => void;
    const probe = breaker.run(() => new Promise<string>((resolve) => (finish = () => resolve('probe'))));
    await expect(breaker.run(async () => 'other')).rejects.toBeInstanceOf(CoordinatorUnavailableError);
    finish();
    await expect(probe).resolves.toBe('probe');
    await expect(breaker.run(async () => 'after')).resolves.toBe('after');
  });

  it('endCoolDown lets the next call probe at once', async () => {
    const { breaker, ok, fail } = setup();
    for (let i = 0; i < 3; i++) await fail().catch(() => undefined);
    breaker.endCoolDown();
    await expect(ok()).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
  });

  it('bounds every call by the timeout, which counts as a failure', async () => {
    const { breaker } = setup({ now: Date.now, failureThreshold: 1 });
    const started = Date.now();
    await expect(breaker.run(() => new Promise(() => undefined))).rejects.toBeInstanceOf(CoordinatorUnavailableError);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(breaker.state).toBe('open');
  });

  it('an answer already received when a busy process reaches the deadline wins over it', async () => {
    // A server in another process (as Redis is) answers at once, while this process is blocked
    // past the deadline (as a loaded gateway's event loop is): Node runs due timers before it
    // reads its sockets, so the answer is there when the deadline is looked at.
    const server = spawn(process.execPath, [
      '-e',
      "require('net').createServer((s) => s.on('data', () => s.write('pong'))).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
    ]);
    try {
      const port = Number(await new Promise<string>((resolve) => server.stdout.once('data', (data) => resolve(String(data)))));
      const client = connect(port, '127.0.0.1');
      await new Promise((resolve) => client.once('connect', resolve));
      const { breaker } = setup({ now: Date.now, failureThreshold: 1, timeoutMs: 20 });
      const answer = breaker.run(() => {
        const pong = new Promise<string>((resolve) => client.once('data', (data) => resolve(String(data))));
        client.write('ping');
        const blockedUntil = Date.now() + 150; // the reply arrives during this; the deadline passes
        while (Date.now() < blockedUntil);
        return pong;
      });
      await expect(answer).resolves.toBe('pong');
      expect(breaker.state).toBe('closed');
      client.destroy();
    } finally {
      server.kill();
    }
  });

  it('passes the deadline to the work', async () => {
    const { breaker } = setup();
    await expect(breaker.run(async (deadline) => deadline)).resolves.toBe(1_000_000 + 50);
  });

  it('errors that are not failures do not count (the dependency answered)', async () => {
    const { breaker } = setup({ failureThreshold: 1, isFailure: (error) => !(error instanceof TypeError) });
    await expect(breaker.run(async () => Promise.reject(new TypeError('WRONGTYPE')))).rejects.toBeInstanceOf(TypeError);
    expect(breaker.state).toBe('closed');
  });
});
