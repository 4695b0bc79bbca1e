/**
 * What a gateway started from a folder leaves in its data folder for the operator CLI run from the
 * same folder, so that `gateway ...` works there with neither GATEWAY_URL nor GATEWAY_ADMIN_TOKEN:
 *
 * - `gateway.json`: the API's address and who serves it (pid, start time, boot id, host: the data
 *   folder lock's owner record). Written at start on an EMBEDDED folder only: it has one gateway at
 *   most (dataFolderLock.ts), so the file names THE gateway of the folder; with PostgreSQL several
 *   gateways may start from one folder and none writes it. Removed when the gateway exits; one
 *   left by a process that is gone (a crash, kill -9) is ignored.
 * - `admin-token`: the operator token the gateway generated when GATEWAY_ADMIN_TOKEN was unset
 *   (adminToken.ts writes it, readable by its owner only).
 *
 * Light on imports: the CLI loads this on every command.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { lockOwner, ownerIsRunning, type LockOwner } from './dataFolderLock.js';

export const GATEWAY_FILE_NAME = 'gateway.json';
export const ADMIN_TOKEN_FILE_NAME = 'admin-token';

interface GatewayFile extends LockOwner {
  url: string;
}

interface Announcement {
  /** Only an embedded database's folder is the folder of one gateway. */
  embedded: boolean;
  dataDir: string;
  /** The API's address (PUBLIC_URL, or http://HOST:PORT). */
  url: string;
  log: { warn(details: object, message: string): void };
}

/**
 * Writes `gateway.json` into an embedded data folder (nothing otherwise) and removes it when the
 * process exits. Never fails the start: the CLI then falls back to its default address.
 */
export async function announceGatewayInDataFolder({ embedded, dataDir, url, log }: Announcement): Promise<void> {
  if (!embedded || dataDir.startsWith('memory://')) return;
  const file = path.resolve(dataDir, GATEWAY_FILE_NAME);
  const content = `${JSON.stringify({ url, ...lockOwner() } satisfies GatewayFile)}\n`;
  try {
    // Whole or not at all: a CLI reading at that moment never sees half a file.
    const draft = `${file}.${process.pid}.draft`;
    await writeFile(draft, content, { mode: 0o644 });
    await rename(draft, file);
  } catch (error) {
    log.warn({ err: error, file }, 'could not write the gateway address for the CLI (set GATEWAY_URL for it instead)');
    return;
  }
  process.on('exit', () => {
    try {
      // Only ever our own: a later gateway on the folder (after a take-over) wrote its own.
      if (readFileSync(file, 'utf8') === content) unlinkSync(file);
    } catch {
      // Already gone, or the folder with it.
    }
  });
}

/**
 * The address a running gateway left in `dataDir`, with the file it came from; null when none runs
 * there. Synchronous, as the CLI's few small reads before its one request are.
 */
export function runningGatewayIn(dataDir: string): { url: string; file: string } | null {
  const file = path.resolve(dataDir, GATEWAY_FILE_NAME);
  let found: Partial<GatewayFile>;
  try {
    found = JSON.parse(readFileSync(file, 'utf8')) as Partial<GatewayFile>;
  } catch {
    return null; // none (or not ours to read)
  }
  if (typeof found.url !== 'string' || !URL.canParse(found.url) || !Number.isSafeInteger(found.pid) || (found.pid as number) <= 0) return null;
  return ownerIsRunning(found as GatewayFile) ? { url: found.url, file } : null;
}

/** The operator token a gateway generated in `dataDir`, with its file; null when there is none. */
export function adminTokenIn(dataDir: string): { token: string; file: string } | null {
  const file = path.resolve(dataDir, ADMIN_TOKEN_FILE_NAME);
  try {
    const token = readFileSync(file, 'utf8').trim();
    return token ? { token, file } : null;
  } catch {
    return null; // none, or not readable by this user (it is its owner's only)
  }
}
