/**
 * One webhook attempt over HTTP: POST the exact bytes, no redirects followed (node:http never
 * follows them; a 3xx is a failure), a deadline on the whole exchange, and a DNS lookup that
 * refuses private targets, so the address actually connected to is the one checked (DNS
 * rebinding: a name that was public at registration can resolve to 127.0.0.1 later).
 */
import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isNonPublicAddress } from '../domain/webhooks/addresses.js';
import type { AttemptOutcome } from '../domain/webhooks/deliveries.js';

/** How much of the receiver's answer is read and logged: the rest is never read. */
const RESPONSE_LOG_BYTES = 1024;
/** Longest error text logged. */
const ERROR_LOG_CHARS = 500;

/**
 * Keep-alive connections (most deliveries go to a few hosts). No socket limit here: the dispatcher
 * bounds attempts in flight, and a request queued inside the agent would spend its deadline waiting.
 *
 * Idle connections kept: up to 256 per host (node's default), in practice what the dispatcher had
 * in flight to that host (64 at most by default). With 16, every time the dispatcher's queue ran
 * dry (between two claims, while the database answers) all but 16 of its connections to a host
 * were closed, and the next burst opened them again: 15,134 TCP connections for 100,000
 * deliveries in the bench, 0.18 instead of 0.15 ms of CPU per delivery. An idle connection is
 * closed after IDLE_MS (sooner if the receiver's Keep-Alive header says so: node's agent honours it).
 */
const IDLE_MS = 30_000;
const AGENT_OPTIONS = { keepAlive: true, maxFreeSockets: 256, timeout: IDLE_MS, scheduling: 'lifo' as const };
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/** dns.lookup, keeping only public addresses (unless private targets are allowed). */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = (addresses as unknown as LookupAddress[]).filter((entry) => allowPrivate || !isNonPublicAddress(entry.address));
      if (list.length === 0) return callback(new PrivateAddressError(`${hostname} resolves only to loopback, private or link-local addresses`), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const [first] = list;
      callback(null, first!.address, first!.family);
    });
  };
}
const LOOKUPS = { allowed: guardedLookup(true), publicOnly: guardedLookup(false) };

/** How a reused keep-alive connection that the receiver had already closed fails. */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/** PostgreSQL text cannot hold NUL; a receiver's answer may. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point: it is replaced before the text is stored
const loggable = (text: string, max: number): string => text.replace(/\u0000/g, '\uFFFD').slice(0, max);

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export function postWebhook(target: string, body: Buffer, headers: Record<string, string>, options: PostOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    const answer = () => loggable(Buffer.concat(chunks).subarray(0, RESPONSE_LOG_BYTES).toString('utf8'), RESPONSE_LOG_BYTES);
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        statusCode,
        error: error === null ? null : loggable(error, ERROR_LOG_CHARS),
        durationMs: Math.round(performance.now() - started),
        response: statusCode === null ? null : answer(),
      });
    };
    let timer: NodeJS.Timeout | undefined;

    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return finish('invalid URL');
    }
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) return finish(`unsupported protocol ${url.protocol}`);
    // An IP literal is connected to without a lookup: check it here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) && isNonPublicAddress(host)) return finish('refused: loopback, private or link-local address');

    let current: http.ClientRequest | undefined;
    let resentOnFreshConnection = false;
    const send = () => {
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: 'POST',
          agent,
          lookup: options.allowPrivate ? LOOKUPS.allowed : LOOKUPS.publicOnly,
          headers: { ...headers, 'content-length': String(body.length) },
        },
        (response) => {
          statusCode = response.statusCode ?? null;
          response.on('data', (chunk: Buffer) => {
            if (received < RESPONSE_LOG_BYTES) chunks.push(chunk);
            received += chunk.length;
            // Enough to log: the rest is not read (the connection is not reused).
            if (received >= RESPONSE_LOG_BYTES) {
              response.destroy();
              finish(null);
            }
          });
          response.on('end', () => finish(null));
          response.on('error', () => finish(null));
          response.on('close', () => finish(null));
        },
      );
      current = request;
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed while it was idle fails at once, before the
        // receiver saw anything: that is not the receiver's answer. Sent again once, on a new
        // connection, within the same deadline.
        if (statusCode === null && request.reusedSocket && !resentOnFreshConnection && !settled && STALE_CONNECTION_ERRORS.has(error.code ?? '')) {
          resentOnFreshConnection = true;
          send();
          return;
        }
        finish(statusCode === null ? `${error.code ? `${error.code}: ` : ''}${error.message}` : null);
      });
      request.end(body);
    };
    timer = setTimeout(() => {
      // The status arrived in time: that is the answer, whatever the body does.
      if (statusCode !== null) finish(null);
      else finish(`no answer within ${options.timeoutMs} ms`);
      current?.destroy();
    }, options.timeoutMs);
    send();
  });
}
