/**
 * Webhook secrets: generated here, shown to the merchant once, stored only encrypted
 * (AES-256-GCM under the server key, the row's id as associated data so a ciphertext copied onto
 * another row does not decrypt), and used as the HMAC-SHA256 key: the UTF-8 bytes of the secret
 * string exactly as shown (docs/webhooks.md).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** 32 random bytes = 256 bits, base64url. */
const SECRET_BYTES = 32;
/** Stored form: `v1.<iv>.<ciphertext>.<tag>` (base64url): the version leaves room for a new scheme. */
const FORMAT = 'v1';
const IV_BYTES = 12;

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * The AES key from the configured server key (any string of at least 32 characters, e.g. the
 * generated one): HKDF-SHA256, so a passphrase-like value still yields a uniform 256-bit key.
 */
export function deriveWebhookSecretKey(serverKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(serverKey, 'utf8'), Buffer.alloc(0), 'xof-gateway webhook secrets v1', 32));
}

export function encryptWebhookSecret(key: Buffer, webhookId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Throws when the stored value was not made with this key for this webhook (a wrong WEBHOOK_SECRET_KEY). */
export function decryptWebhookSecret(key: Buffer, webhookId: string, stored: string): string {
  const [format, iv, ciphertext, tag] = stored.split('.');
  if (format !== FORMAT || !iv || ciphertext === undefined || !tag) throw new Error(`webhook ${webhookId}: stored secret has an unknown format`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(webhookId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`webhook ${webhookId}: its secret does not decrypt with this server key (is WEBHOOK_SECRET_KEY the one it was created with?)`);
  }
}

/** X-Signature: lowercase hex HMAC-SHA256 of exactly the bytes sent, keyed with the secret's UTF-8 bytes. */
export function signWebhookBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}
