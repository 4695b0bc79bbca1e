/**
 * Webhook rules that need no server: which addresses count as private (refused at registration
 * and at connection time), URL checks at registration, secrets encrypted under the server key and
 * bound to their webhook, and the signature over the exact bytes.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isNonPublicAddress } from '../../src/domain/webhooks/addresses.js';
import {
  decryptWebhookSecret,
  deriveWebhookSecretKey,
  encryptWebhookSecret,
  generateWebhookSecret,
  signWebhookBody,
} from '../../src/domain/webhooks/secrets.js';
import { postWebhook } from '../../src/webhooks/http.js';

describe('webhook target addresses', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '[::1]',
    'not-an-ip',
  ])('treats %s as not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('treats %s as public', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'private_webhook_url'],
    ['http://localhost/hook', 'private_webhook_url'],
    ['http://LOCALHOST./hook', 'private_webhook_url'],
    ['https://api.localhost/hook', 'private_webhook_url'],
    ['http://[::1]/hook', 'private_webhook_url'],
    ['http://169.254.169.254/latest/meta-data', 'private_webhook_url'],
    ['http://10.0.0.5/hook', 'private_webhook_url'],
    ['http://[::ffff:192.168.0.1]/hook', 'private_webhook_url'],
    ['http://intranet/hook', 'private_webhook_url'],
    ['ftp://shop.example.sn/hook', 'invalid_webhook_url'],
    ['javascript:alert(1)', 'invalid_webhook_url'],
    ['not a url', 'invalid_webhook_url'],
    ['https://user:pass@shop.example.sn/hook', 'invalid_webhook_url'],
  ])('refuses %s at registration (%s)', async (url, code) => {
    await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({ code });
  });

  it('accepts public http(s) URLs, and private ones only when WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
    expect(await checkWebhookUrl('https://93.184.215.14/webhooks/pay', false)).toBe('https://93.184.215.14/webhooks/pay');
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hook', true)).toBe('http://127.0.0.1:8080/hook');
    await expect(checkWebhookUrl('ftp://127.0.0.1/hook', true)).rejects.toMatchObject({ code: 'invalid_webhook_url' });
  });

  it('connects to a name that resolves to loopback when private targets are allowed', async () => {
    const server = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const outcome = await postWebhook(`http://localhost:${port}/hook`, Buffer.from('{}'), {}, { timeoutMs: 2_000, allowPrivate: true });
      expect(outcome).toMatchObject({ statusCode: 204, error: null });
    } finally {
      server.close();
    }
  });

  it('sends again, once, on a new connection when a kept-alive connection turns out closed (not the receiver’s answer)', async () => {
    let connections = 0;
    const server = createNetServer((socket) => {
      const number = ++connections;
      let requests = 0;
      socket.on('data', (data) => {
        if (!data.toString('latin1').startsWith('POST ')) return;
        requests++;
        // The first connection answers once, then dies on its next request, as an idle-closed one does.
        if (number === 1 && requests === 2) return socket.resetAndDestroy();
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const send = () => postWebhook(`http://127.0.0.1:${port}/hook`, Buffer.from('{}'), {}, { timeoutMs: 2_000, allowPrivate: true });
      expect(await send()).toMatchObject({ statusCode: 200, error: null });
      expect(await send()).toMatchObject({ statusCode: 200, error: null, response: 'ok' });
      expect(connections).toBe(2);
    } finally {
      server.close();
    }
  });

  it('refuses a private target at connection time too, before any byte is sent', async () => {
    const literal = await postWebhook('http://127.0.0.1:9/hook', Buffer.from('{}'), {}, { timeoutMs: 1_000, allowPrivate: false });
    expect(literal).toMatchObject({ statusCode: null, error: 'refused: loopback, private or link-local address' });
    // A name that resolves to loopback (what a rebinding name does after registration).
    const named = await postWebhook('http://localhost:9/hook', Buffer.from('{}'), {}, { timeoutMs: 1_000, allowPrivate: false });
    expect(named.statusCode).toBeNull();
    expect(named.error).toMatch(/EPRIVATEADDRESS|resolves only to loopback/);
  });
});

describe('webhook secrets', () => {
  const key = deriveWebhookSecretKey(randomBytes(32).toString('base64url'));

  it('are stored encrypted, decrypt only with the same server key and for the same webhook', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const stored = encryptWebhookSecret(key, 'webhook-a', secret);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptWebhookSecret(key, 'webhook-a', stored)).toBe(secret);
    expect(() => decryptWebhookSecret(key, 'webhook-b', stored)).toThrow(/does not decrypt/);
    expect(() => decryptWebhookSecret(deriveWebhookSecretKey('another server key, 32 characters at least'), 'webhook-a', stored)).toThrow(/WEBHOOK_SECRET_KEY/);
    // Two encryptions of one secret differ (random IV).
    expect(encryptWebhookSecret(key, 'webhook-a', secret)).not.toBe(stored);
  });

  it('sign the exact bytes: lowercase hex HMAC-SHA256 keyed with the secret’s UTF-8 bytes', () => {
    const secret = 'whsec_é-ü';
    const body = '{"order_id":"x","amount":1000}';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signWebhookBody(secret, body)).toBe(expected);
    expect(signWebhookBody(secret, Buffer.from(body))).toBe(expected);
    expect(signWebhookBody(secret, '{"order_id": "x","amount":1000}')).not.toBe(expected);
  });
});

describe('the outbox sweep’s pace (WEBHOOK_SWEEP_MS)', () => {
  it('is 10 s unless set, and refuses to start outside 100 ms to 10 minutes', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(loadConfig({}).webhook.sweepEveryMs).toBe(10_000);
    expect(loadConfig({ WEBHOOK_SWEEP_MS: '1000' }).webhook.sweepEveryMs).toBe(1_000);
    expect(() => loadConfig({ WEBHOOK_SWEEP_MS: '50' })).toThrow(/WEBHOOK_SWEEP_MS/);
    expect(() => loadConfig({ WEBHOOK_SWEEP_MS: '600001' })).toThrow(/WEBHOOK_SWEEP_MS/);
  });
});

describe('the server key of webhook secrets', () => {
  it('comes from WEBHOOK_SECRET_KEY (32+ characters), else is generated once into the data folder and reused', async () => {
    const { loadConfig } = await import('../../src/config.js');
    const { loadOrCreateWebhookSecretKey } = await import('../../src/infra/webhookSecretKey.js');
    const { mkdtemp, readFile, rm, stat } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');

    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: 'too short' })).toThrow(/WEBHOOK_SECRET_KEY must be at least 32 characters/);
    expect(loadConfig({ WEBHOOK_SECRET_KEY: 'k'.repeat(32) }).webhookSecretKey).toBe('k'.repeat(32));

    const dir = await mkdtemp(path.join(tmpdir(), 'webhook-key-'));
    try {
      const fromEnv = await loadOrCreateWebhookSecretKey(dir, 'k'.repeat(32));
      expect(fromEnv).toMatchObject({ source: 'environment' });
      expect(fromEnv.key.equals(deriveWebhookSecretKey('k'.repeat(32)))).toBe(true);

      const created = await loadOrCreateWebhookSecretKey(dir, undefined);
      expect(created.source).toBe('created');
      expect((await stat(created.file!)).mode & 0o777).toBe(0o600);
      const again = await loadOrCreateWebhookSecretKey(dir, undefined);
      expect(again.source).toBe('file');
      expect(again.key.equals(created.key)).toBe(true);
      expect(created.key.equals(deriveWebhookSecretKey((await readFile(created.file!, 'utf8')).trim()))).toBe(true);
      // Two starts at once agree on one key.
      const dir2 = path.join(dir, 'fresh');
      const [first, second] = await Promise.all([loadOrCreateWebhookSecretKey(dir2, undefined), loadOrCreateWebhookSecretKey(dir2, undefined)]);
      expect(first.key.equals(second.key)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
