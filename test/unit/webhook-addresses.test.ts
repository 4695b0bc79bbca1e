/**
 * Which webhook targets count as loopback or private, over a table of the forms an attacker
 * writes them in: IPv4 inside IPv6 (mapped, SIIT, IPv4-compatible, NAT64, 6to4), Teredo, the
 * unspecified address, legacy IPv4 spellings (decimal, hex, octal, short) and names with trailing
 * dots. Refused when registered (checkWebhookUrl) AND when connecting (postWebhook: an IP literal,
 * or a name whose DNS answer is one of them).
 */
import dns from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkWebhookUrl, isNonPublicAddress } from '../../src/domain/webhooks/addresses.js';
import { postWebhook } from '../../src/webhooks/http.js';

/** Addresses (as a resolver or a URL host gives them) that reach loopback, private or reserved space. */
const NOT_PUBLIC = [
  // plain
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '192.0.0.8',
  '192.88.99.1',
  '198.18.0.1',
  '224.0.0.1',
  '255.255.255.255',
  '::1',
  '::',
  '0:0:0:0:0:0:0:1',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd00::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
  '3fff::1',
  '5f00::1',
  '64:ff9b:1::a00:1',
  // IPv4-compatible ::a.b.c.d (deprecated), in both spellings
  '::127.0.0.1',
  '::7f00:1',
  '::8.8.8.8',
  // IPv4-mapped ::ffff:a.b.c.d
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::FFFF:7F00:1',
  '0:0:0:0:0:ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:a9fe:a9fe',
  '::ffff:0.0.0.0',
  // SIIT ::ffff:0:a.b.c.d
  '::ffff:0:127.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0:c0a8:1',
  // NAT64 64:ff9b::a.b.c.d
  '64:ff9b::127.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::a9fe:a9fe',
  // 6to4 2002:AABB:CCDD::
  '2002:7f00:1::',
  '2002:7f00:1::1',
  '2002:a00:1::',
  '2002:c0a8:101::1',
  // Teredo 2001:0::/32 (its client address is obfuscated)
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '2001::1',
  // bracketed, as in a URL
  '[::1]',
  '[::ffff:7f00:1]',
  // not addresses at all (legacy spellings must go through the URL parser first)
  '2130706433',
  '0x7f.1',
  '0177.0.0.1',
  '127.1',
  'localhost',
  '',
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '::ffff:0:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('isNonPublicAddress', () => {
  it.each(NOT_PUBLIC)('refuses %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(PUBLIC)('accepts %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });
});

describe('checkWebhookUrl (registration, private targets not allowed)', () => {
  it.each([
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:127.0.0.1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[::]/hook',
    'http://[::1]:8080/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'http://[fe80::1]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://0x7f000001/hook',
    'http://0177.0.0.1/hook',
    'http://127.1/hook',
    'http://0/hook',
    'http://017700000001/hook',
    'http://localhost./hook',
    'http://localhost../hook',
    'http://LocalHost/hook',
    'http://api.localhost./hook',
    'https://169.254.169.254./latest/meta-data',
  ])('refuses %s', async (url) => {
    await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({ code: 'private_webhook_url', status: 400 });
  });

  it('accepts a public address written inside IPv6', async () => {
    expect(await checkWebhookUrl('http://[::ffff:8.8.8.8]/hook', false)).toBe('http://[::ffff:808:808]/hook');
    expect(await checkWebhookUrl('http://[2606:4700:4700::1111]/hook', false)).toBe('http://[2606:4700:4700::1111]/hook');
  });
});

describe('postWebhook (delivery, private targets not allowed)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A receiver on loopback that counts what reaches it: nothing may. */
  async function loopbackReceiver(): Promise<{ port: number; hits: () => number; close: () => void }> {
    let hits = 0;
    const server = createServer((request, response) => {
      hits++;
      request.resume().on('end', () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, hits: () => hits, close: () => server.close() };
  }

  it.each(['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:0:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]', '2130706433', '0x7f.1', '127.1'])(
    'refuses the literal %s without connecting',
    async (host) => {
      const receiver = await loopbackReceiver();
      try {
        const outcome = await postWebhook(`http://${host}:${receiver.port}/hook`, Buffer.from('{}'), {}, { timeoutMs: 2_000, allowPrivate: false });
        expect(outcome).toMatchObject({ statusCode: null, error: expect.stringMatching(/loopback, private or link-local/) });
        expect(receiver.hits()).toBe(0);
      } finally {
        receiver.close();
      }
    },
  );

  it.each([
    [[{ address: '::ffff:127.0.0.1', family: 6 }]],
    [[{ address: '::ffff:0:7f00:1', family: 6 }]],
    [[{ address: '64:ff9b::7f00:1', family: 6 }]],
    [[{ address: '2002:7f00:1::', family: 6 }]],
    [
      [
        { address: '127.0.0.1', family: 4 },
        { address: '::ffff:7f00:1', family: 6 },
      ],
    ],
  ])('refuses a name whose DNS answer is %j (DNS rebinding)', async (answers) => {
    const receiver = await loopbackReceiver();
    // The name resolves to loopback in disguise, as a rebinding DNS server would answer.
    vi.spyOn(dns, 'lookup').mockImplementation(((_hostname: string, _options: unknown, callback: (error: null, addresses: unknown) => void) => {
      callback(null, answers);
    }) as unknown as typeof dns.lookup);
    try {
      const outcome = await postWebhook(`http://rebound.example.com:${receiver.port}/hook`, Buffer.from('{}'), {}, { timeoutMs: 2_000, allowPrivate: false });
      expect(outcome).toMatchObject({ statusCode: null, error: expect.stringMatching(/resolves only to loopback, private or link-local/) });
      expect(receiver.hits()).toBe(0);
    } finally {
      receiver.close();
    }
  });
});
