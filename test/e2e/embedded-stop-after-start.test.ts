/**
 * An embedded gateway stopped right after its first answer, while its first queries (background
 * jobs, Prisma's engine) are still in flight, must exit: PGlite's close() takes none of its locks,
 * and a query that ran after it spun for ever inside PGlite's WASM, so the process never exited
 * (src/infra/prisma/database.ts, closableClient). Three rounds: it failed 3 times in 4 without
 * the fix.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledPreload, startGatewayProcess, TEST_NODE_FLAGS, TEST_PROCESS_SETTINGS } from '../support/processes.js';

/** Far above a stop's real duration (~1-2 s), far below "for ever". */
const STOP_BOUND_MS = 20_000;
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('an embedded gateway stopped right after it answers', () => {
  it('exits 0 on SIGTERM, round after round', async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-stop-'));
      folders.push(dataDir);
      const gateway = await startGatewayProcess({ GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: `gw_op_stop_${round}_0123456789abcdef` });
      gateway.child.kill('SIGTERM');
      const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_BOUND_MS).unref());
      const outcome = await Promise.race([gateway.exited, bound]);
      if (outcome === 'still running') await gateway.stop();
      expect(outcome, gateway.output()).toEqual({ code: 0, signal: null });
    }
  }, 180_000);

  it('exits 0 on a SIGTERM that arrives the moment its API server listens (before any answer)', async () => {
    // The process signals itself from inside (a preload), on ports the system picks: a test that
    // watched the port from outside could meet another test's server on it.
    const preload = compiledPreload(fileURLToPath(new URL('../support/sigterm-at-listen.ts', import.meta.url)));
    for (let round = 0; round < 3; round++) {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-stop-'));
      folders.push(dataDir);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_ADMIN_TOKEN: `gw_op_listen_${round}_0123456789abcdef`,
        PORT: '0',
        CHECKOUT_PORT: '0',
        ...TEST_PROCESS_SETTINGS,
      };
      for (const name of ['DATABASE_URL', 'REDIS_URL']) delete env[name];
      const child = spawn(process.execPath, [...TEST_NODE_FLAGS, '--import', preload, 'dist/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_BOUND_MS).unref());
      const outcome = await Promise.race([exited, bound]);
      if (outcome === 'still running') child.kill('SIGKILL');
      expect(outcome, output).toEqual({ code: 0, signal: null });
    }
  }, 180_000);
});
