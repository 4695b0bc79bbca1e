/**
 * The bootstrap operator token. When GATEWAY_ADMIN_TOKEN is unset, one is generated on first
 * start, kept in the data folder (readable by its owner only) and printed once.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OPERATOR_TOKEN_PREFIX, generateSecret } from '../domain/auth.js';

export async function loadOrCreateAdminToken(dataDir: string): Promise<{ token: string; created: boolean; file: string }> {
  const file = path.resolve(dataDir, 'admin-token');
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) return { token: existing.trim(), created: false, file };
  await mkdir(dataDir, { recursive: true });
  const { secret } = generateSecret(OPERATOR_TOKEN_PREFIX);
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return { token: secret, created: true, file };
}
