/**
 * The server key webhook secrets are encrypted under: WEBHOOK_SECRET_KEY when set (instances
 * sharing a database must share it: sharedSecrets.ts refuses a host whose key differs), else
 * generated on first start and kept in the data folder (readable by its owner only), like the
 * admin token. Losing it makes stored secrets undecryptable (deliveries then fail and say so in
 * their log): rotate each webhook's secret to recover.
 */
import { randomBytes } from 'node:crypto';
import { deriveWebhookSecretKey } from '../domain/webhooks/secrets.js';
import { dataFolderSecretSource } from './dataFolderSecret.js';
import type { LocalSecretSource } from './sharedSecrets.js';

/** The key kept in `dataDir/webhook-secret-key`, generated there when asked to. */
export const webhookSecretKeySource = (dataDir: string): LocalSecretSource =>
  dataFolderSecretSource({
    dataDir,
    fileName: 'webhook-secret-key',
    variable: 'WEBHOOK_SECRET_KEY',
    generate: () => randomBytes(32).toString('base64url'),
    whenEmpty: '(webhook secrets stored under a lost key must then be rotated)',
  });

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
