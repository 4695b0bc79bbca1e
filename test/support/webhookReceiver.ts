/**
 * A real webhook receiver for tests: a node:http server on 127.0.0.1 that keeps the raw bytes of
 * every request and verifies X-Signature over exactly those bytes with a constant-time comparison
 * (what the spec asks of merchants). Each path answers as the test tells it (status sequence,
 * delay, redirect).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The signature matched the secret registered for the path (null: no secret known). */
  signatureValid: boolean | null;
  at: number;
}

interface PathBehaviour {
  /** Status of each successive request (the last one repeats); default 200. */
  statuses?: number[];
  /** Milliseconds before answering. */
  delayMs?: number;
  /** Decides the status from the request (overrides `statuses`). */
  statusFor?: (headers: IncomingHttpHeaders) => number;
  /** Answer 302 with this Location. */
  redirectTo?: string;
  /** Body sent back. */
  body?: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests received on one path. */
  on(path: string): ReceivedWebhook[];
  /** The secret to verify a path's signatures with, and how it answers. */
  configure(path: string, setup: { secret?: string; behaviour?: PathBehaviour }): void;
  close(): Promise<void>;
}

/** The merchant side of the spec's Signature rules. */
export function signatureMatches(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const secrets = new Map<string, string>();
  const behaviours = new Map<string, PathBehaviour>();
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const raw = Buffer.concat(chunks);
      const secret = secrets.get(path);
      const signatureValid = secret === undefined ? null : signatureMatches(secret, raw, request.headers['x-signature']);
      received.push({ path, headers: request.headers, raw, signatureValid, at: Date.now() });
      const behaviour = behaviours.get(path) ?? {};
      const count = counts.get(path) ?? 0;
      counts.set(path, count + 1);
      const statuses = behaviour.statuses ?? [200];
      const status = signatureValid === false ? 401 : (behaviour.statusFor?.(request.headers) ?? statuses[Math.min(count, statuses.length - 1)]!);
      const answer = () => {
        if (response.destroyed) return;
        if (behaviour.redirectTo) response.writeHead(302, { location: behaviour.redirectTo }).end();
        else response.writeHead(status, { 'content-type': 'text/plain' }).end(behaviour.body ?? `status ${status}`);
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    on: (path) => received.filter((request) => request.path === path),
    configure: (path, setup) => {
      if (setup.secret !== undefined) secrets.set(path, setup.secret);
      if (setup.behaviour) behaviours.set(path, setup.behaviour);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `check` holds (webhooks arrive asynchronously). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<Exclude<T, null | undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, null | undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
