/**
 * A start that cannot succeed says why in ONE line on stderr, naming what to change, and exits 1:
 * no stack trace (a driver's or PGlite's WASM stack tells an operator nothing), no password.
 * The details of an unforeseen failure stay one LOG_LEVEL=debug away.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME } from '../../src/infra/dataFolderLock.js';
import { freePort } from '../support/processes.js';
import { killLeftovers, looksLikeStackFrame, runGatewayUntilExit, stderrLines, type FinishedProcess } from './startup-processes.js';

const ADMIN_TOKEN = `gw_op_startup_${Math.random().toString(36).slice(2)}`;
const folders: string[] = [];
const servers: Server[] = [];

async function newFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'gateway-startup-'));
  folders.push(folder);
  return folder;
}

/** A port some other program listens on. */
async function occupiedPort(): Promise<number> {
  const port = await freePort();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return port;
}

function expectOneLineFailure(finished: FinishedProcess, line: string | RegExp): void {
  expect(finished.code).toBe(1);
  const lines = stderrLines(finished);
  expect(lines).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
  expect(lines.filter(looksLikeStackFrame)).toEqual([]);
}

afterAll(async () => {
  await killLeftovers();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('a start that fails', () => {
  it('on a busy PORT names the port and the variable to change, and releases the data folder', async () => {
    const dataDir = await newFolder();
    const port = await occupiedPort();
    const finished = await runGatewayUntilExit({ PORT: String(port), GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(finished, `gateway: port ${port} is already in use (set PORT to another port)`);
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  }, 60_000);

  it('on a busy CHECKOUT_PORT names CHECKOUT_PORT', async () => {
    const port = await occupiedPort();
    const finished = await runGatewayUntilExit({ CHECKOUT_PORT: String(port), GATEWAY_DATA_DIR: await newFolder(), GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(finished, `gateway: port ${port} is already in use (set CHECKOUT_PORT to another port)`);
  }, 60_000);

  it('on an unreachable PostgreSQL names its host and port, within seconds, and never the password', async () => {
    const finished = await runGatewayUntilExit({ DATABASE_URL: 'postgresql://postgres:not-to-be-printed@127.0.0.1:1/x', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(
      finished,
      'gateway: cannot reach PostgreSQL at 127.0.0.1:1 (connection refused): start PostgreSQL, or correct the host and port in DATABASE_URL',
    );
    expect(finished.elapsedMs).toBeLessThan(10_000);
    expect(finished.stdout + finished.stderr).not.toContain('not-to-be-printed');
  }, 30_000);

  it('on a database that does not exist names the database and how to create it', async () => {
    const database = `gateway_missing_${process.pid}_${Date.now()}`;
    const finished = await runGatewayUntilExit({ DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${database}`, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(
      finished,
      `gateway: database "${database}" does not exist on PostgreSQL at 127.0.0.1:5432: ` +
        `create it (createdb -h 127.0.0.1 -p 5432 -U postgres ${database}) or name an existing database in DATABASE_URL`,
    );
    expect(finished.elapsedMs).toBeLessThan(10_000);
  }, 30_000);

  it('on a data folder that cannot be one names it and GATEWAY_DATA_DIR', async () => {
    const notAFolder = path.join(await newFolder(), 'a-file');
    await writeFile(notAFolder, '');
    const dataDir = path.join(notAFolder, 'data');
    const finished = await runGatewayUntilExit({ GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(
      finished,
      `gateway: cannot use ${dataDir} as the data folder (ENOTDIR): make it a folder this user can write to, or set GATEWAY_DATA_DIR to another one`,
    );
  }, 30_000);

  it('on a malformed setting names the variable', async () => {
    const finished = await runGatewayUntilExit({ PORT: 'eighty', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(finished, 'gateway: PORT must be an integer from 0 to 65535 (got "eighty")');
  }, 30_000);

  it('for an unforeseen reason prints one line by default, and the whole error with LOG_LEVEL=debug', async () => {
    // A data folder that is not a PGlite database: PGlite itself fails, deep in its WASM.
    const dataDir = await newFolder();
    await writeFile(path.join(dataDir, 'PG_VERSION'), 'not a version\n');

    const plain = await runGatewayUntilExit({ GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    expectOneLineFailure(plain, /^gateway: failed to start: .+ \(set LOG_LEVEL=debug to see the details\)$/);
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);

    const debug = await runGatewayUntilExit({ GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'debug' });
    expect(debug.code).toBe(1);
    expect(stderrLines(debug)[0]).toMatch(/^gateway: failed to start: /);
    expect(stderrLines(debug).some(looksLikeStackFrame)).toBe(true);
  }, 60_000);
});
