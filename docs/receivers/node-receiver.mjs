// A payment_status webhook receiver for the gateway, Node 18+ with no dependency.
// Run: WEBHOOK_SECRET='<the secret shown when the webhook was created>' PORT=8080 node node-receiver.mjs
//
// X-Signature is the lowercase hex HMAC-SHA256 of the RAW request body bytes, keyed with the UTF-8
// bytes of the secret. Verify those bytes exactly as received: never re-serialise the JSON first.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET');
const MAX_BODY = 1024 * 1024;

function signatureMatches(raw, header) {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    if (req.method !== 'POST' || !signatureMatches(raw, req.headers['x-signature'])) {
      res.writeHead(401).end();
      return;
    }
    const event = JSON.parse(raw.toString('utf8'));
    // The same event may arrive more than once: make fulfilment idempotent (keyed by order_id).
    // Compare event.amount with what you expect before fulfilling; paid_and_blocked counts as paid.
    const paid = event.transaction_status === 'paid' || event.transaction_status === 'paid_and_blocked';
    console.log(JSON.stringify({ verified: true, order_id: event.order_id, transaction_status: event.transaction_status, amount: event.amount, paid }));
    // Answer 2xx fast (within 5 s), also for unknown order ids, so the gateway does not retry.
    res.writeHead(200).end();
  });
}).listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => console.log(JSON.stringify({ listening: true })));
