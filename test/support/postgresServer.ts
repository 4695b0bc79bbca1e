/**
 * A throwaway PostgreSQL server of the test run's own, on 127.0.0.1 and a free port, in a
 * temporary folder whose Unix socket the tests use: initdb, then the machine's own PostgreSQL 15
 * binaries. It runs without durability (fsync, synchronous_commit and full_page_writes off): a
 * crash of the machine loses nothing a test needs, and every commit and CREATE DATABASE stops
 * waiting for the disk (a clone of the template took ~0.6 s on the machine's durable server,
 * ~0.25 s here; measured in docs/development.md). The machine's shared server is never
 * reconfigured.
 *
 * Both the suite's server and the streaming-replica tests' primary and standby are made here. They
 * run as the `postgres` OS user when the tests run as root (initdb refuses root).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);

/** The server's programs (Debian's layout); PG_BINDIR elsewhere. */
export const PG_BIN = process.env.PG_BINDIR ?? '/usr/lib/postgresql/15/bin';

const asRoot = process.getuid?.() === 0;

/** A server program, as the postgres OS user when we are root. */
export const asServerUser = (program: string, args: string[]) =>
  asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, program), ...args]) : run(join(PG_BIN, program), args);

/** A folder the server user may write to; in memory (/dev/shm) when the machine has it. */
export function serverFolder(prefix: string): string {
  const parent = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = mkdtempSync(join(parent, prefix));
  if (asRoot) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
    chownSync(dir, uid!, gid!);
  }
  return dir;
}

/** Small and fast: a throwaway cluster needs no durability. */
export const serverOptions = (port: number, socketDir: string, extra = '') =>
  `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${socketDir} -c fsync=off -c full_page_writes=off ${extra}`;

/** Stops a server now, synchronously (for process exit, when nothing async runs any more). */
export function stopNow(dataDir: string): void {
  try {
    execFileSync(
      asRoot ? 'runuser' : join(PG_BIN, 'pg_ctl'),
      [...(asRoot ? ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl')] : []), '-D', dataDir, '-s', '-m', 'immediate', 'stop'],
      {
        stdio: 'ignore',
      },
    );
  } catch {
    // Not running.
  }
}

export interface PostgresServer {
  /** The `postgres` database of the server: the admin connection. */
  adminUrl: string;
  port: number;
  /** Whether the server started from a saved copy of a cluster (see `snapshot` below) rather than initdb. */
  fromSnapshot: boolean;
  stop(): Promise<void>;
  /**
   * Stops the server cleanly (a checkpoint: nothing left to replay) and saves a copy of its data
   * folder at `target` for later runs to start from; then it is gone like stop()'s.
   */
  stopAndSave(target: string): Promise<void>;
}

/** A folder copied whole, owners and modes kept (`cp -a`: the server user's files stay its own). */
const copyFolder = (from: string, to: string) => run('cp', ['-a', from, to]);

/**
 * Starts a server for the test run: up to 300 connections (two workers' gateways, gateway
 * processes, fault clusters), the folder removed when it stops or the process exits. With
 * `snapshot` (a data folder an earlier run saved with stopAndSave), the cluster is a copy of it,
 * with the databases it held, instead of a new one from initdb.
 */
export async function startPostgresServer(options: { snapshot?: string } = {}): Promise<PostgresServer> {
  const dir = serverFolder('gateway-test-pg-');
  const data = join(dir, 'data');
  const port = await freePort();
  const onExit = () => {
    stopNow(data);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  /** Stops the server; says whether pg_ctl saw it stop (false: it was not running, or still is). */
  const stopWith = async (mode: 'immediate' | 'fast'): Promise<boolean> => {
    process.removeListener('exit', onExit);
    return asServerUser('pg_ctl', ['-D', data, '-s', '-m', mode, 'stop']).then(
      () => true,
      () => false,
    );
  };
  const stop = async () => {
    await stopWith('immediate');
    rmSync(dir, { recursive: true, force: true });
  };
  let fromSnapshot = false;
  try {
    if (options.snapshot)
      fromSnapshot = await copyFolder(options.snapshot, data).then(
        () => true,
        () => false, // being replaced by another run right now: make a new cluster instead
      );
    if (!fromSnapshot) {
      rmSync(data, { recursive: true, force: true });
      await asServerUser('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-N', '--no-instructions', '-E', 'UTF8']);
    }
    // Commits stop waiting for the WAL flush too (the streaming-replica pair keeps it: its standby's
    // lag is what those tests measure). WAL segments a checkpoint no longer needs are removed, not
    // kept for reuse: a saved copy holds the cluster's data, not the seed's ~560 MB of old WAL.
    // No JIT: only the million-row files' statements cost enough to be compiled, and compiling
    // them took more than it saved (those two files: 17.8-18.3 CPU-s against 19.1-22.0).
    const serverSettings = serverOptions(port, dir, '-c synchronous_commit=off -c max_connections=300 -c shared_buffers=128MB -c wal_recycle=off -c jit=off');
    await asServerUser('pg_ctl', ['-D', data, '-w', '-s', '-l', join(dir, 'server.log'), '-o', serverSettings, 'start']);
  } catch (error) {
    await stop();
    throw error;
  }
  const stopAndSave = async (target: string) => {
    // Only a cleanly stopped cluster is copied: one still running (or stopped half-way) would be
    // a copy later runs start from for as long as its name holds.
    if (await stopWith('fast')) {
      // Copied beside the target, then renamed into place: a run starting meanwhile sees no
      // snapshot or a whole one.
      const partial = `${target}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      try {
        await copyFolder(data, partial);
        renameSync(partial, target);
      } catch {
        rmSync(partial, { recursive: true, force: true }); // another run saved the same one first
      }
    } else {
      await stopWith('immediate');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Reached through its Unix socket (pg and so Prisma's adapter take `?host=<folder>`; the port
  // names the socket file), not TCP on 127.0.0.1: every query's write through the loopback TCP
  // stack was the workers' largest native cost, and the fast loop took 66.6-66.8 s and 118-119
  // busy CPU-seconds this way against 74.8-76.3 and 131-135 (the whole suite 184 s against 198).
  // The server still listens on 127.0.0.1:port for whoever needs TCP (the fault tests' proxies).
  return { adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres?host=${encodeURIComponent(dir)}`, port, fromSnapshot, stop, stopAndSave };
}
