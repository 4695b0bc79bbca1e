/**
 * Where webhooks may be sent. A merchant-supplied URL must not make the gateway reach into its
 * own network (SSRF): loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT,
 * multicast and reserved ranges are refused unless WEBHOOK_ALLOW_PRIVATE_URLS=true. The check runs
 * at registration AND on the address actually connected to (the dispatcher's DNS lookup), since a
 * name can resolve elsewhere later (DNS rebinding).
 */
import { BlockList, isIP, isIPv4 } from 'node:net';
import { lookup } from 'node:dns/promises';
import { DomainError } from '../errors.js';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d, or its hex form) is judged as the IPv4 one. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/** True for any address that is not on the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return NOT_PUBLIC.check(bare, 'ipv4');
  if (isIP(bare) !== 6) return true; // not an address at all: refuse
  const v4 = embeddedIpv4(bare);
  return v4 ? NOT_PUBLIC.check(v4, 'ipv4') : NOT_PUBLIC.check(bare, 'ipv6');
}

const MAX_URL_LENGTH = 2048;
/** Registration does not wait long on DNS: the connection-time check is the one that counts. */
const REGISTRATION_LOOKUP_TIMEOUT_MS = 2_000;

/**
 * Validates a webhook URL at registration: http(s), no credentials, and (unless private targets
 * are allowed) a host that is not a private address nor resolves to one. A host that does not
 * resolve now is accepted (DNS may not be set up yet): every connection checks again anyway.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('invalid_webhook_url', 'not a URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw new DomainError('invalid_webhook_url', `longer than ${MAX_URL_LENGTH} characters`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DomainError('invalid_webhook_url', 'it must use http or https');
  if (url.username || url.password) throw new DomainError('invalid_webhook_url', 'credentials in the URL are not allowed');
  if (!url.hostname) throw new DomainError('invalid_webhook_url', 'no host');
  if (allowPrivate) return url.toString();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isNonPublicAddress(host)) throw new DomainError('private_webhook_url');
    return url.toString();
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local') || name.endsWith('.internal') || !name.includes('.')) {
    throw new DomainError('private_webhook_url');
  }
  const addresses = await resolveWithin(name, REGISTRATION_LOOKUP_TIMEOUT_MS);
  if (addresses.some(isNonPublicAddress)) throw new DomainError('private_webhook_url');
  return url.toString();
}

async function resolveWithin(name: string, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), timeoutMs);
  });
  const resolved = lookup(name, { all: true, verbatim: true }).then(
    (answers) => answers.map((answer) => answer.address),
    () => [] as string[],
  );
  try {
    return await Promise.race([resolved, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
