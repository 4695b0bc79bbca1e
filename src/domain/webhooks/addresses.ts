/**
 * Where webhooks may be sent. A merchant-supplied URL must not make the gateway reach into its
 * own network (SSRF): loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT,
 * multicast and reserved ranges are refused unless WEBHOOK_ALLOW_PRIVATE_URLS=true. The check runs
 * at registration AND on the address actually connected to (the dispatcher's DNS lookup), since a
 * name can resolve elsewhere later (DNS rebinding).
 */
import { isIP, isIPv4 } from 'node:net';
import { lookup } from 'node:dns/promises';
import { DomainError } from '../errors.js';

/**
 * IPv4 ranges that are not the public internet (IANA special-purpose registry): "this network",
 * private, CGNAT, loopback, link-local, IETF protocol assignments, documentation, the 6to4 relay
 * anycast, benchmarking, multicast, reserved and broadcast.
 */
const IPV4_NOT_PUBLIC: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6 ranges refused whatever they carry. The ranges that EMBED an IPv4 address (mapped, SIIT,
 * NAT64 64:ff9b::/96, 6to4) are not here: they are judged by the IPv4 address inside (see
 * `embeddedIpv4`), so `::ffff:127.0.0.1`, `::ffff:0:7f00:1`, `64:ff9b::127.0.0.1` and
 * `2002:7f00:1::` are loopback, while the same forms around a public address stay public.
 * `::/96` (unspecified, loopback, the deprecated IPv4-compatible `::a.b.c.d`) is refused whole:
 * no public service is reached that way.
 */
const IPV6_NOT_PUBLIC: readonly (readonly [string, number])[] = [
  ['::', 96],
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: its client address is obfuscated and its relay decides where it goes
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/** The 4 bytes of a dotted IPv4 address (already validated by isIPv4). */
const ipv4Bytes = (address: string): number[] => address.split('.').map(Number);

/**
 * The 16 bytes of an IPv6 address already validated by isIP (so the syntax is trusted): hex
 * groups, at most one `::`, and possibly a dotted IPv4 tail.
 */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    tail.push(...ipv4Bytes(dotted[1]));
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', rest] = text.split('::');
  const before = groups(head);
  const after = rest === undefined ? [] : groups(rest);
  const missing = 8 - tail.length / 2 - before.length - after.length;
  const words = [...before, ...new Array<number>(Math.max(0, missing)).fill(0), ...after];
  return [...words.flatMap((word) => [word >> 8, word & 255]), ...tail];
}

/** True when the first `prefix` bits of `bytes` equal those of `network`. */
function inPrefix(bytes: readonly number[], network: readonly number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const bits = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((network[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

const IPV4_RANGES = IPV4_NOT_PUBLIC.map(([network, prefix]) => ({ bytes: ipv4Bytes(network), prefix }));
const IPV6_RANGES = IPV6_NOT_PUBLIC.map(([network, prefix]) => ({ bytes: ipv6Bytes(network), prefix }));

const ipv4NotPublic = (bytes: readonly number[]): boolean => IPV4_RANGES.some((range) => inPrefix(bytes, range.bytes, range.prefix));

const startsWith = (bytes: readonly number[], prefix: readonly number[]): boolean => prefix.every((byte, index) => bytes[index] === byte);
const ZEROS = (count: number): number[] => new Array<number>(count).fill(0);

/**
 * The IPv4 address an IPv6 one stands for, if it is one of the forms that reach IPv4: mapped
 * `::ffff:a.b.c.d` (the kernel connects to a.b.c.d), SIIT `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d` (a NAT64 gateway connects to a.b.c.d), and 6to4 `2002:AABB:CCDD::/48`.
 */
function embeddedIpv4(bytes: readonly number[]): number[] | null {
  if (startsWith(bytes, [...ZEROS(10), 0xff, 0xff])) return bytes.slice(12);
  if (startsWith(bytes, [...ZEROS(8), 0xff, 0xff, 0, 0])) return bytes.slice(12);
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...ZEROS(8)])) return bytes.slice(12);
  if (startsWith(bytes, [0x20, 0x02])) return bytes.slice(2, 6);
  return null;
}

/**
 * True for any address that is not on the public internet, including loopback and private IPv4
 * addresses written inside IPv6 (`[::ffff:127.0.0.1]`, `[::ffff:0:127.0.0.1]`, `[::127.0.0.1]`,
 * `[64:ff9b::127.0.0.1]`, `2002:7f00:1::`), and anything that is not an address at all. Legacy
 * IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`) are not addresses here (refused); in a
 * URL, the WHATWG parser turns them into dotted form first, which is then judged.
 */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return ipv4NotPublic(ipv4Bytes(bare));
  if (isIP(bare) !== 6) return true; // not an address at all: refuse
  const bytes = ipv6Bytes(bare);
  const v4 = embeddedIpv4(bytes);
  if (v4) return ipv4NotPublic(v4);
  return IPV6_RANGES.some((range) => inPrefix(bytes, range.bytes, range.prefix));
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
  // `localhost.` and `localhost..` name the same host as `localhost`.
  const name = host.toLowerCase().replace(/\.+$/, '');
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
