/**
 * The webhook dispatch scenario's receiver, as its own process: what a merchant is told to run
 * (README: verify the raw body, answer 2xx fast), and nothing more. node:http, no framework.
 *
 *   POST /hooks/<webhookId>  verifies X-Signature (lowercase hex HMAC-SHA256 of the raw bytes,
 *                            keyed with the endpoint's secret, constant-time comparison), notes
 *                            X-Event-Id, answers 200 ("ok"), or 401 on a bad signature.
 *   POST /secrets            {webhookId: secret, ...}: the endpoints' secrets (the bench made them).
 *   GET  /stats              counts: requests, valid, invalid, duplicate event ids, first/last arrival,
 *                            TCP connections accepted (a sender that keeps its connections alive opens few).
 *   GET  /events             the distinct event ids received, to check against the database.
 *   POST /reset              forgets what was received (after the floor's runs).
 *   GET  /healthz            200.
 *
 *   node --import tsx bench/floors/receiver.ts   (env: PORT)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const HOOK_PREFIX = '/hooks/';
const SIGNATURE = /^[0-9a-f]{64}$/;

const secrets = new Map<string, Buffer>();
let events = new Set<string>();
const emptyStats = () => ({ requests: 0, valid: 0, invalid: 0, duplicates: 0, withoutEventId: 0, bytes: 0, firstAt: 0, lastAt: 0, connections: 0 });
let stats = emptyStats();

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The merchant's check: the signature over exactly the bytes received, compared in constant time. */
function signatureValid(secret: Buffer | undefined, raw: Buffer, header: string | string[] | undefined): boolean {
  if (!secret || typeof header !== 'string' || !SIGNATURE.test(header)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

function hook(request: IncomingMessage, response: ServerResponse, raw: Buffer): void {
  const now = Date.now();
  stats.requests++;
  stats.bytes += raw.length;
  if (stats.firstAt === 0) stats.firstAt = now;
  stats.lastAt = now;
  const webhookId = (request.url ?? '').slice(HOOK_PREFIX.length);
  if (!signatureValid(secrets.get(webhookId), raw, request.headers['x-signature'])) {
    stats.invalid++;
    response.writeHead(401, { 'content-type': 'text/plain' }).end('bad signature');
    return;
  }
  stats.valid++;
  const eventId = request.headers['x-event-id'];
  if (typeof eventId !== 'string') stats.withoutEventId++;
  else if (events.has(eventId)) stats.duplicates++;
  else events.add(eventId);
  response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
}

const json = (response: ServerResponse, value: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));

const server = createServer((request, response) => {
  readBody(request).then(
    (raw) => {
      const url = request.url ?? '/';
      if (request.method === 'POST' && url.startsWith(HOOK_PREFIX)) return hook(request, response, raw);
      if (request.method === 'GET' && url === '/healthz') return json(response, { status: 'ok' });
      if (request.method === 'GET' && url === '/stats') return json(response, { ...stats, distinctEvents: events.size });
      if (request.method === 'GET' && url === '/events') return json(response, [...events]);
      if (request.method === 'POST' && url === '/secrets') {
        for (const [id, secret] of Object.entries(JSON.parse(raw.toString('utf8')) as Record<string, string>)) secrets.set(id, Buffer.from(secret, 'utf8'));
        return json(response, { endpoints: secrets.size });
      }
      if (request.method === 'POST' && url === '/reset') {
        events = new Set();
        stats = emptyStats();
        return json(response, { reset: true });
      }
      response.writeHead(404).end();
    },
    () => response.destroy(),
  );
});
server.on('connection', () => stats.connections++);
server.listen(Number(process.env.PORT) || 0, '127.0.0.1');
