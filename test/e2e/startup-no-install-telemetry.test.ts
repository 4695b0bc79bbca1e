/**
 * Installing the gateway reports nothing to anyone. swagger-ui-dist (the /docs page) depends on
 * @scarf/scarf, whose postinstall sends install analytics unless the root package opts out.
 * package.json opts out twice: `allowScripts` denies the script to npm >= 11.19, and
 * `scarfSettings` makes the script itself decide to do nothing (older npm, other clients).
 *
 * The script is run here exactly as npm runs a postinstall (cwd = the package, INIT_CWD = the
 * project), with SCARF_LOCAL_PORT pointing it at a local sink instead of scarf.sh: whatever it
 * decides, nothing leaves this machine, and the sink shows whether it would have reported.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const projectRoot = process.cwd();
const require = createRequire(import.meta.url);
// Scarf as swagger-ui-dist resolves it, i.e. the copy npm would run.
const reportScript = createRequire(require.resolve('swagger-ui-dist/package.json')).resolve('@scarf/scarf');

let sinkPort: number;
const sinkServers: Server[] = [];
const reports: string[] = [];
let scratch: string;

/** Listens on the IPv4 and (where there is one) the IPv6 loopback: scarf connects to "localhost". */
async function startSink(): Promise<void> {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    reports.push(`${req.method} ${req.url}`);
    req.resume();
    res.end('ok');
  };
  const v4 = createServer(handler);
  await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
  sinkServers.push(v4);
  sinkPort = (v4.address() as { port: number }).port;
  const v6 = createServer(handler);
  await new Promise<void>((resolve) => v6.once('error', () => resolve()).listen(sinkPort, '::1', resolve));
  sinkServers.push(v6);
}

/** Runs scarf's postinstall the way npm does, for the project whose package.json is in `root`. */
async function runScarfPostinstall(root: string): Promise<{ code: number | null; output: string }> {
  // A clean environment: no SCARF_ANALYTICS / DO_NOT_TRACK from the caller may decide for us.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    TMPDIR: scratch, // scarf keeps a rate-limit file in the temporary folder
    INIT_CWD: root,
    npm_lifecycle_event: 'postinstall',
    npm_execpath: path.join(path.dirname(process.execPath), 'npm'),
    SCARF_LOCAL_PORT: String(sinkPort),
    SCARF_VERBOSE: 'true',
  };
  const child = spawn(process.execPath, [reportScript], { cwd: path.dirname(reportScript), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'gateway-scarf-'));
  await startSink();
});

afterAll(async () => {
  await Promise.all(sinkServers.map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(scratch, { recursive: true, force: true });
});

describe('installing the gateway', () => {
  it('denies scarf its install script (npm allowScripts)', async () => {
    const manifest = JSON.parse(await readFile(path.join(projectRoot, 'package.json'), 'utf8'));
    expect(manifest.allowScripts?.['@scarf/scarf']).toBe(false);
  });

  it('makes scarf decide to report nothing when its script runs anyway', async () => {
    reports.length = 0;
    const { code, output } = await runScarfPostinstall(projectRoot);
    expect(code).toBe(0);
    expect(output).toContain('User has opted out');
    expect(reports).toEqual([]);
  }, 30_000);

  it('would report without the opt-out (the check above is not vacuous)', async () => {
    reports.length = 0;
    const manifest = JSON.parse(await readFile(path.join(projectRoot, 'package.json'), 'utf8'));
    // The same project minus the opt-out; skipTraversal keeps scarf from running `npm ls` here.
    const control = path.join(scratch, 'control');
    await rm(control, { recursive: true, force: true });
    await mkdir(control);
    await writeFile(path.join(control, 'package.json'), JSON.stringify({ ...manifest, scarfSettings: { skipTraversal: true } }));

    const { code } = await runScarfPostinstall(control);

    expect(code).toBe(0);
    expect(reports).toEqual(['POST /package-event/install']);
  }, 30_000);
});
