/**
 * One gateway per embedded data folder. PGlite is a single-process database: two processes on one
 * folder each keep their own copy in memory and overwrite each other's files, so writes are lost
 * without an error. A lock file in the folder records its owner; a second start refuses before it
 * opens PGlite, and a lock whose owner is gone (crash, kill -9, reboot) is taken over.
 *
 * Why a file and not flock(): Node has no flock, and a file also tells the refused operator WHICH
 * process holds the folder. Why "is the owner still running" rather than a timeout: the gateway
 * may run for months; only the owner's death makes the lock stale.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from './startupErrors.js';

export const LOCK_FILE_NAME = 'gateway.lock';

/** What the lock file holds: enough to tell a live owner from a dead one whose pid was reused. */
export interface LockOwner {
  pid: number;
  /** Linux: the process start time (/proc/<pid>/stat field 22); a reused pid has another one. */
  startTime?: string;
  /** Linux: changes at every boot, when all earlier pids become meaningless. */
  bootId?: string;
  /** Pids mean nothing on another machine (a folder shared over the network). */
  host?: string;
  /** Makes every lock file's content unique, so "the same stale lock" can be recognised. */
  nonce?: string;
  since?: string;
}

export interface DataFolderLock {
  file: string;
  /** Removes the lock if it is still ours. Idempotent; also runs on process exit. */
  release(): void;
}

export interface LockOptions {
  /** Told when a stale lock was replaced, with a sentence saying whose it was. */
  onTakeOver?: (description: string) => void;
}

export class DataFolderInUseError extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    const elsewhere = owner.host && owner.host !== hostname();
    super(
      `the data folder ${dataDir} is in use by another gateway (pid ${owner.pid}${elsewhere ? ` on host ${owner.host}` : ''}): ` +
        `stop that process, or set GATEWAY_DATA_DIR to another folder, or set DATABASE_URL to use PostgreSQL` +
        (elsewhere ? ` (if it no longer runs there, delete ${path.join(dataDir, LOCK_FILE_NAME)})` : ''),
    );
  }
}

/** A few seconds of contention at most (each round is one create attempt); then something is wrong. */
const MAX_ROUNDS = 100;
const ROUND_PAUSE_MS = 20;
/** Each level is a take-over claim left by a process that died during its own take-over. */
const MAX_CLAIM_DEPTH = 4;
/** Only with the non-link fallback can a lock be seen empty; a young empty one is being written. */
const BEING_WRITTEN_MS = 2_000;

/** Creates the data folder if needed and locks it, or says in one line why it cannot. */
export async function acquireDataFolderLock(dataDir: string, options: LockOptions = {}): Promise<DataFolderLock> {
  const folder = path.resolve(dataDir);
  try {
    await mkdir(folder, { recursive: true });
    return await lockFolder(folder, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR') {
      throw new StartupError(
        `cannot use ${folder} as the data folder (${code}): make it a folder this user can write to, or set GATEWAY_DATA_DIR to another one`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function lockFolder(folder: string, options: LockOptions): Promise<DataFolderLock> {
  const file = path.join(folder, LOCK_FILE_NAME);
  const content = `${JSON.stringify(lockOwner())}\n`;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const attempt = await attemptLock(file, content, 0);
    if (attempt.taken) {
      if (attempt.replaced) options.onTakeOver?.(describeStale(file, attempt.replaced));
      return holdLock(file, content);
    }
    if (attempt.holder) throw new DataFolderInUseError(folder, attempt.holder);
    await sleep(ROUND_PAUSE_MS); // it changed under us (released, or being taken over): look again
  }
  throw new StartupError(`could not lock the data folder ${folder}: ${file} keeps changing; is another gateway starting on it?`);
}

// ---- who owns a lock ------------------------------------------------------------------------

/** This process as a lock's owner (also what gateway.json records: localGateway.ts). */
export function lockOwner(): Required<LockOwner> {
  return {
    pid: process.pid,
    startTime: processStartTime(process.pid) ?? '',
    bootId: currentBootId() ?? '',
    host: hostname(),
    nonce: randomUUID(),
    since: new Date().toISOString(),
  };
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may itself hold spaces and ")"). */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined; // not Linux, or no such process
  }
}

function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/** Errs on the side of "running": refusing to start is recoverable, two writers are not. */
export function ownerIsRunning(owner: LockOwner): boolean {
  if (owner.host && owner.host !== hostname()) return true; // we cannot see that machine's processes
  const bootId = currentBootId();
  if (owner.bootId && bootId && owner.bootId !== bootId) return false; // the machine restarted since
  if (!pidExists(owner.pid)) return false;
  const startTime = owner.startTime ? processStartTime(owner.pid) : undefined;
  return startTime === undefined || startTime === owner.startTime; // same pid, other start: reused
}

// ---- taking and releasing ----------------------------------------------------------------------

interface FoundLock {
  raw: string;
  owner?: LockOwner;
}

type Attempt = { taken: true; replaced?: FoundLock } | { taken: false; holder?: LockOwner };

/**
 * One try at creating `file`, removing it first when it is stale. `taken: false` without a holder
 * means "it changed while we looked": the caller pauses and tries again.
 */
async function attemptLock(file: string, content: string, depth: number): Promise<Attempt> {
  if (await createExclusively(file, content)) return { taken: true };
  const found = await readLock(file);
  if (found === 'gone' || found === 'being-written') return { taken: false };
  if (found.owner && ownerIsRunning(found.owner)) return { taken: false, holder: found.owner };
  return (await replaceStaleLock(file, found, content, depth)) ? { taken: true, replaced: found } : { taken: false };
}

/**
 * Creates `file` with its whole content, or reports that it exists. The content is written to a
 * private file first and hard-linked into place: link() fails if the name exists (like O_EXCL) and
 * the lock appears complete, so a reader never sees a half-written lock and mistakes it for a
 * stale one. Where a filesystem has no hard links, an O_EXCL create is the fallback (readers then
 * treat a young empty lock as being written).
 */
async function createExclusively(file: string, content: string): Promise<boolean> {
  const draft = `${file}.${process.pid}.${randomUUID()}.draft`;
  await writeFile(draft, content, { flag: 'wx', mode: 0o644 });
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') return createWithoutLink(file, content);
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function createWithoutLink(file: string, content: string): Promise<boolean> {
  try {
    await writeFile(file, content, { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function readLock(file: string): Promise<FoundLock | 'gone' | 'being-written'> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  const owner = parseOwner(raw);
  if (!owner && (await isYoung(file))) return 'being-written';
  return { raw, owner };
}

/** A lock we cannot read names no owner: treated as stale (our own locks always parse). */
function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as LockOwner;
    return Number.isSafeInteger(value?.pid) && value.pid > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

async function isYoung(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs < BEING_WRITTEN_MS;
}

/**
 * Replaces a stale lock with ours without ever replacing a live one. The naive "unlink, then
 * create" races: when two starters both judge the same lock stale, the slower one's unlink deletes
 * the lock the faster one has just created, and both run. So replacing is claimed first: only the
 * starter that creates `<lock>.takeover-<hash of the stale content>` (exclusively, as above) may
 * replace, and only after re-reading that the lock still has exactly that content. While the claim
 * is held, nobody else can replace that content (it needs the claim) and nobody can create a new
 * lock (the name is taken), so the check-then-replace cannot hit another starter's lock. The
 * replacement is one rename() of our complete lock over the stale one: there is no moment without
 * a lock in which a plain starter could slip in (and the take-over would go unreported). Every
 * lock's content is unique (nonce), so a late starter holding a stale view finds different content
 * and backs off. A claim whose owner died is itself a stale lock, replaced the same way, one level down.
 */
async function replaceStaleLock(file: string, stale: FoundLock, content: string, depth: number): Promise<boolean> {
  if (depth >= MAX_CLAIM_DEPTH) {
    throw new StartupError(
      `could not take over the stale lock ${file}: take-overs keep failing; delete the ${path.basename(file)}* files by hand when no gateway runs`,
    );
  }
  const claim = `${file}.takeover-${createHash('sha256').update(stale.raw).digest('hex').slice(0, 16)}`;
  const claimed = await attemptLock(claim, content, depth + 1);
  if (!claimed.taken) return false; // another starter is taking it over right now
  try {
    if ((await readFile(file, 'utf8').catch(() => null)) !== stale.raw) return false;
    const draft = `${file}.${process.pid}.${randomUUID()}.draft`;
    await writeFile(draft, content, { flag: 'wx', mode: 0o644 });
    await rename(draft, file).catch(async (error: unknown) => {
      await unlink(draft).catch(() => undefined);
      throw error;
    });
    return true;
  } finally {
    await unlink(claim).catch(ignoreMissing);
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

/**
 * Release is synchronous so that it can also run in the 'exit' handler: a start that fails after
 * taking the lock, or a shutdown cut short by its grace period, must not leave the folder locked.
 */
function holdLock(file: string, content: string): DataFolderLock {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    try {
      // Only ever remove our own lock (a take-over after a hang could have replaced it).
      if (readFileSync(file, 'utf8') === content) unlinkSync(file);
    } catch {
      // Already gone, or the folder vanished: nothing left to release.
    }
  };
  process.on('exit', release);
  return { file, release };
}

function describeStale(file: string, stale: FoundLock): string {
  return stale.owner
    ? `took over ${file}, left by pid ${stale.owner.pid}${stale.owner.since ? ` (since ${stale.owner.since})` : ''}, which is no longer running`
    : `took over ${file}, which named no owner we could read`;
}
