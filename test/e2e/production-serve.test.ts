/**
 * `npm start` builds dist/ first (prestart), which deletes and rewrites dist/: two instances started
 * at once from one checkout race on it. `npm run serve` is production's start: the built artefact,
 * with start's node flags, and no build. Proven on a copy of the scripts with a build that leaves a
 * mark (so "no build" is observed, not assumed), then on the real gateway.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useGateway } from '../support/gateway.js';
import { freePorts, waitFor } from '../support/processes.js';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const gateway = useGateway();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A project with the gateway's start scripts, a build that leaves `built`, and a dist/main.js that reports how it was run. */
async function projectWithTheseScripts(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gateway-serve-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const { prestart, start, serve } = scripts;
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'serve-check', private: true, type: 'module', scripts: { prestart, start, serve } }));
  await mkdir(path.join(dir, 'scripts'));
  await writeFile(path.join(dir, 'scripts', 'build.mjs'), "import { writeFileSync } from 'node:fs';\nwriteFileSync('built', 'yes');\n");
  await mkdir(path.join(dir, 'dist'));
  await writeFile(path.join(dir, 'dist', 'main.js'), "console.log('ran dist/main.js with ' + JSON.stringify(process.execArgv));\n");
  return dir;
}

const npm = (dir: string, ...args: string[]) => spawnSync('npm', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });

describe('npm run serve', () => {
  it('runs dist/main.js with the same node flags as npm start, without building', async () => {
    const dir = await projectWithTheseScripts();
    const served = npm(dir, 'run', 'serve');
    expect(served.status, served.stderr).toBe(0);
    expect(served.stdout).toContain('ran dist/main.js with ["--enable-source-maps","--max-old-space-size=512","--v8-pool-size=1"]');
    expect(existsSync(path.join(dir, 'built'))).toBe(false);
    // npm start, by contrast, builds first: the mark appears.
    const started = npm(dir, 'start');
    expect(started.status, started.stderr).toBe(0);
    expect(started.stdout).toContain('ran dist/main.js with ["--enable-source-maps","--max-old-space-size=512","--v8-pool-size=1"]');
    expect(existsSync(path.join(dir, 'built'))).toBe(true);
    expect(scripts.preserve).toBeUndefined();
  });

  it('starts the real gateway from the built dist/', async () => {
    const [port, checkoutPort] = (await freePorts(2)) as [number, number];
    const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-serve-data-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      CHECKOUT_PORT: String(checkoutPort),
      DATABASE_URL: gateway.databaseUrl,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_TOKEN: 'gw_op_production_serve_0123456789',
      LOG_LEVEL: 'warn',
    };
    delete env.REDIS_URL;
    // Its own process group, so that npm, its shell and the gateway all stop together.
    const child = spawn('npm', ['run', 'serve'], { cwd: process.cwd(), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    cleanups.push(async () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok,
      60_000,
      () => output,
    );
    expect(output).toContain(`Gateway API      http://127.0.0.1:${port}`);
    // Stopped through its group: npm, its shell and the gateway.
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  });
});
