/**
 * The server key webhook secrets are encrypted under: WEBHOOK_SECRET_KEY when set (instances
 * sharing a database must share it: sharedSecrets.ts refuses a host whose key differs), else
 * generated on first start and kept in the data folder (readable by its owner only), like the
 * admin token. Losing it makes stored secrets undecryptable (deliveries then fail and say so in
 * their log): rotate each webhook's secret to recover.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deriveWebhookSecretKey } from '../domain/webhooks/secrets.js';
import type { LocalSecretSource } from './sharedSecrets.js';
import { StartupError } from './startupErrors.js';

/** The key kept in `dataDir/webhook-secret-key`, generated there when asked to. */
export function webhookSecretKeySource(dataDir: string): LocalSecretSource {
  const file = path.resolve(dataDir, 'webhook-secret-key');
  const read = async () => (await readFile(file, 'utf8').catch(() => null))?.trim() || null;
  return {
    where: file,
    read,
    async create() {
      const generated = randomBytes(32).toString('base64url');
      try {
        await mkdir(dataDir, { recursive: true });
        // 'wx': of two instances starting on one folder at once, one writes and the other reads it.
        await writeFile(file, `${generated}\n`, { mode: 0o600, flag: 'wx' });
        return { value: generated, created: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          // Another starter is writing it: read it once it has.
          await new Promise((resolve) => setTimeout(resolve, 100));
          const written = await read();
          if (written) return { value: written, created: false };
          throw new StartupError(`${file} is empty: delete it (webhook secrets stored under a lost key must then be rotated) or set WEBHOOK_SECRET_KEY`);
        }
        throw new StartupError(`WEBHOOK_SECRET_KEY is unset and its generated key cannot be stored in ${file}: set WEBHOOK_SECRET_KEY (or make GATEWAY_DATA_DIR writable)`);
      }
    },
    discard: () => unlink(file),
  };
}

export async function loadOrCreateWebhookSecretKey(
  dataDir: string,
  configured: string | undefined,
): Promise<{ key: Buffer; source: 'environment' | 'created' | 'file'; file?: string }> {
  if (configured) return { key: deriveWebhookSecretKey(configured), source: 'environment' };
  const source = webhookSecretKeySource(dataDir);
  const existing = await source.read();
  if (existing) return { key: deriveWebhookSecretKey(existing), source: 'file', file: source.where };
  const { value, created } = await source.create();
  return { key: deriveWebhookSecretKey(value), source: created ? 'created' : 'file', file: source.where };
}
