/**
 * A PostgreSQL primary and its streaming replica of our own, on 127.0.0.1, in a temporary folder:
 * a cluster made with initdb (the machine's shared server is never restarted nor copied), the
 * run's migrated template copied into it (pg_dump, well under a second: no migration), then
 * pg_basebackup -R and a hot standby started from it. Both run as the `postgres` OS user when the
 * tests run as root (initdb refuses root), as the current user otherwise.
 *
 * `close()` stops both and removes the folder; so does the process's exit, if a run is cut short.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';
import { TEST_POSTGRES_URL } from './env.js';
import { PG_BIN as BIN, asServerUser, serverFolder, serverOptions as fastServerOptions, stopNow } from './postgresServer.js';
import { freePort } from './processes.js';

const run = promisify(execFile);

export interface StreamingReplica {
  /** The gateway's database on the primary (the template's copy). */
  primaryUrl: string;
  /** The same database on the standby. */
  replicaUrl: string;
  /** Stops applying WAL on the standby (it keeps receiving it): its reads freeze in time. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the standby (fast shutdown: its connections are cut). */
  stopReplica(): Promise<void>;
  close(): Promise<void>;
}

/** Small and fast: a throwaway pair needs neither durability nor memory. */
const serverOptions = (port: number, dir: string) => fastServerOptions(port, dir, '-c shared_buffers=16MB -c max_connections=40 -c wal_level=replica');

/**
 * Starts the server of `data` on a port found free just before, logging to `log`. A port found
 * free can be taken by another test's listener before the server binds it (seen in a full run with
 * four workers: "could not start server", the replica started seconds after its port was chosen):
 * then it tries another port, at most three times. Any other failure says what the server logged.
 */
async function startOnFreePort(data: string, dir: string, log: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const loggedBefore = (await readFile(log, 'utf8').catch(() => '')).length;
    try {
      await asServerUser('pg_ctl', ['-D', data, '-w', '-s', '-l', log, '-o', serverOptions(port, dir), 'start']);
      return port;
    } catch (error) {
      // What this attempt logged (the log file is appended to by every attempt).
      const logged = (await readFile(log, 'utf8').catch(() => '')).slice(loggedBefore);
      if (attempt < 3 && /could not bind|Address already in use/i.test(logged)) continue;
      throw new Error(`${String(error)}\n${data}'s server log:\n${logged.split('\n').slice(-15).join('\n')}`);
    }
  }
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

export async function startStreamingReplica(): Promise<StreamingReplica> {
  const dir = serverFolder('gateway-replica-');
  const primaryData = join(dir, 'primary');
  const replicaData = join(dir, 'replica');
  const stopAll = (mode: 'fast' | 'immediate') =>
    Promise.allSettled([replicaData, primaryData].map((data) => asServerUser('pg_ctl', ['-D', data, '-s', '-m', mode, 'stop'])));
  // A run cut short (a crash, ^C) must not leave two servers running: stop them on exit, synchronously.
  const onExit = () => {
    for (const data of [replicaData, primaryData]) stopNow(data);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const close = async () => {
    process.removeListener('exit', onExit);
    await stopAll('immediate');
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await asServerUser('initdb', ['-D', primaryData, '-A', 'trust', '-U', 'postgres', '-N', '--no-instructions', '-E', 'UTF8']);
    const primaryPort = await startOnFreePort(primaryData, dir, join(dir, 'primary.log'));
    const primaryAdmin = `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`;
    await query(primaryAdmin, 'CREATE DATABASE gateway');
    const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/gateway`;
    const template = new URL(TEST_POSTGRES_URL);
    template.pathname = `/${inject('templateDatabase')}`;
    await run('bash', [
      '-o',
      'pipefail',
      '-c',
      `"${BIN}/pg_dump" --no-owner --no-privileges "$1" | "${BIN}/psql" -q -v ON_ERROR_STOP=1 "$2" >/dev/null`,
      'copy',
      template.toString(),
      primaryUrl,
    ]);
    await asServerUser('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaData,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    const replicaPort = await startOnFreePort(replicaData, dir, join(dir, 'replica.log'));
    const replicaUrl = `postgresql://postgres@127.0.0.1:${replicaPort}/gateway`;
    const [standby] = await query<{ standby: boolean }>(replicaUrl, 'SELECT pg_is_in_recovery() AS standby');
    if (!standby?.standby) throw new Error('the replica started, but not as a standby');
    return {
      primaryUrl,
      replicaUrl,
      pauseReplay: async () => void (await query(replicaUrl, 'SELECT pg_wal_replay_pause()')),
      resumeReplay: async () => void (await query(replicaUrl, 'SELECT pg_wal_replay_resume()')),
      stopReplica: async () => void (await asServerUser('pg_ctl', ['-D', replicaData, '-w', '-s', '-m', 'fast', 'stop'])),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
