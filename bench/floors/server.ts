/**
 * The floors, as their own process: a bare fastify server (the HTTP floor, /healthz) whose other
 * routes do only the SQL their operation needs, as prepared statements through `pg` (the database
 * floors). Paths mirror the gateway's, so a scenario's request works on both servers unchanged.
 * No validation beyond what the SQL needs, no logging, no rate limit: that is the point of a floor.
 *
 *   node --import tsx bench/floors/server.ts   (env: DATABASE_URL, PORT, POOL_MAX, FORM_SECRET)
 */
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import pg from 'pg';
import { createFormTokens } from '../../src/checkout/csrf.js';
import type { Db } from '../../src/domain/ports.js';
import { registerDirectStatements } from '../../src/domain/statements.js';
import { createSandboxProvider } from '../../src/infra/providers/sandbox.js';
import {
  GET_TRANSACTION,
  INSERT_TRANSACTION,
  KEY_FOR_CREATE,
  LIST_COUNT,
  LIST_PAGE,
  PAY_CLAIM,
  PAY_READ,
  PAY_SETTLE,
  PAYOUT_CALLER,
  PAYOUT_RECORD,
  PAYOUT_SETTLE,
  REFUND_RECORD,
  REFUND_SETTLE,
} from './sql.js';

/** The gateway's own pool size (src/infra/prisma/database.ts), so the two compete on equal terms. */
const POOL_MAX = Number(process.env.POOL_MAX) || 10;
const MAX_LIMIT = 100;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_MAX, statement_timeout: 15_000 });
pool.on('error', () => undefined);

const digestOf = (request: FastifyRequest): string =>
  createHash('sha256')
    .update((request.headers.authorization ?? '').replace(/^Bearer +/i, ''), 'utf8')
    .digest('hex');

/**
 * The wallet: the same stand-in provider the gateway calls (src/infra/providers/sandbox.ts), over
 * this pool's connections with the same named statements. Its books cost one PostgreSQL write per
 * call: the provider's cost, not the gateway's, so both servers pay it (a real provider's call
 * costs a network round trip instead). Measured 2026-11-24 with the gateway alone skipping it:
 * pay 0.73 -> 0.80, payout 0.68 -> 0.83.
 */
const providerDb = { $queryRawUnsafe: async (text: string, ...values: unknown[]) => (await pool.query(text, values)).rows };
registerDirectStatements(providerDb, async (statement, values) => (await pool.query({ name: statement.name, text: statement.text, values })).rows);
const wallet = createSandboxProvider({ db: providerDb as unknown as Db });
/** A wallet the sandbox pays and refunds (docs/sandbox.md's phone table). */
const SUCCEEDING_WALLET = '+221770000001';

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.get('/api/v2/transactions/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
  const { rows } = await pool.query({ ...GET_TRANSACTION, values: [digestOf(request), request.params.id] });
  return rows[0] ? rows[0] : reply.code(404).send({ error: 'Transaction not found' });
});

interface ListQuery {
  status?: string;
  payment_method?: string;
  start_date?: string;
  end_date?: string;
  page?: string;
  limit?: string;
}

app.get('/api/v2/transactions', async (request: FastifyRequest<{ Querystring: ListQuery }>, reply) => {
  const { status, payment_method: method, start_date: start, end_date: end } = request.query;
  if (!status || !method || !start || !end) return reply.code(400).send({ error: 'this floor needs status, payment_method, start_date and end_date' });
  const page = Math.max(1, Number(request.query.page) || 1);
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(request.query.limit) || 20));
  const filter = [digestOf(request), status, method, start, end];
  // Page and count at once, on two connections: what the gateway does too (Promise.all).
  const [items, count] = await Promise.all([
    pool.query({ ...LIST_PAGE, values: [...filter, limit, (page - 1) * limit] }),
    pool.query({ ...LIST_COUNT, values: filter }),
  ]);
  const total = Number(count.rows[0]?.total ?? 0);
  return { transactions: items.rows, pagination: { page, limit, total_count: total, total_pages: Math.ceil(total / limit) } };
});

interface CreateBody {
  method_of_payment?: string[];
  products?: { name: string; price: number; quantity: number; description?: string }[];
  customer?: { first_name?: string; last_name?: string; phone?: string };
  success_url?: string;
  error_url?: string;
}

app.post('/api/v2/transactions', async (request: FastifyRequest<{ Body: CreateBody }>, reply) => {
  const body = request.body ?? {};
  const products = body.products ?? [];
  const methods = body.method_of_payment ?? [];
  if (!products.length || !methods.length) return reply.code(400).send({ error: 'Invalid request body' });
  const { rows } = await pool.query({ ...KEY_FOR_CREATE, values: [digestOf(request)] });
  const key = rows[0];
  if (key?.status !== 'active') return reply.code(401).send({ error: 'Invalid API key' });
  const id = randomUUID();
  const amount = products.reduce((sum, product) => sum + product.price * product.quantity, 0);
  const createdAt = await insertTransaction(id, key.organizationId, amount, methods, body);
  return { order_id: id, amount, method_of_payment: methods, currency: 'XOF', created_at: createdAt, transaction_status: 'pending' };
});

/** The transaction and its products: ONE statement, no transaction around it. */
async function insertTransaction(id: string, organizationId: string, amount: number, methods: string[], body: CreateBody): Promise<Date> {
  const customer = body.customer ?? {};
  const products = body.products ?? [];
  const inserted = await pool.query({
    ...INSERT_TRANSACTION,
    values: [
      id,
      organizationId,
      amount,
      methods,
      customer.first_name ?? null,
      customer.last_name ?? null,
      customer.phone ?? null,
      body.success_url ?? null,
      body.error_url ?? null,
      products.map((p) => p.name),
      products.map((p) => p.price),
      products.map((p) => p.quantity),
      products.map((p) => p.description ?? null),
    ],
  });
  return inserted.rows[0].createdAt as Date;
}

/** The checkout form's token, checked as the gateway checks it (same secret: the bench's operator token). */
const formTokens = createFormTokens(process.env.FORM_SECRET ?? '');

app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, new URLSearchParams(body as string)));

/** Basis points of an amount, rounded half up (the gateway's fee rule). */
const feeOf = (amount: bigint, bp: number): bigint => (amount * BigInt(bp) + 5_000n) / 10_000n;

/** pay: the checkout form's POST: token, read, claim + attempt, wallet (the sandbox, as the gateway's), outcome + posting in one statement, 303. */
app.post('/checkout/:id', async (request: FastifyRequest<{ Params: { id: string }; Body: URLSearchParams }>, reply) => {
  const orderId = request.params.id;
  const form = request.body;
  if (!formTokens.verify(form.get('csrf_token'), orderId, new Date())) return reply.code(403).send('form expired');
  const phone = form.get('phone') ?? '';
  const { rows } = await pool.query({ ...PAY_READ, values: [orderId] });
  const row = rows[0];
  if (!row) return reply.code(409).send('not payable');
  const amount = BigInt(row.amount);
  // The organisation's own wave rate, else wave's default (1 %), as the gateway reads it.
  const fee = feeOf(amount, row.collectionFeesBp?.wave ?? 100);
  const charged = row.feesCustomerSide ? amount + fee : amount;
  const attemptId = randomUUID();
  const claimed = await pool.query({ ...PAY_CLAIM, values: [attemptId, orderId, phone, charged, fee] });
  if (!claimed.rowCount) return reply.code(409).send('not payable');
  await wallet.collect({ method: 'wave', phone, amount: charged, reference: attemptId });
  await pool.query({ ...PAY_SETTLE, values: [attemptId, orderId, fee, phone, charged - fee, -charged, `sbx_collect_${attemptId}`] });
  return reply.redirect('https://shop.example.sn/merci', 303);
});

/** refund: the paid transaction locked, main debited with its posting and the Refund row (one statement); wallet (the sandbox); refunded (one statement). */
app.get('/api/v2/refund/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
  const refundId = randomUUID();
  const recorded = await pool.query({ ...REFUND_RECORD, values: [digestOf(request), request.params.id, refundId, randomUUID()] });
  if (!recorded.rowCount) return reply.code(400).send({ error: 'This Transaction cannot be refund' });
  await wallet.refund({ method: 'wave', phone: SUCCEEDING_WALLET, amount: 1n, reference: refundId });
  return (await pool.query({ ...REFUND_SETTLE, values: [refundId, `sbx_refund_${refundId}`] })).rows[0];
});

interface PayoutBody {
  selected_payment_method?: string;
  amount?: number;
  recipient?: { first_name?: string; last_name?: string; phone?: string };
  reason?: string;
}

/** payout: the debit (amount + fee, never below zero), its posting and the row (one statement); wallet (the sandbox); completed. */
app.post('/api/v2/payouts', async (request: FastifyRequest<{ Body: PayoutBody }>, reply) => {
  const body = request.body ?? {};
  const method = body.selected_payment_method;
  if ((method !== 'wave' && method !== 'orange_money') || !Number.isSafeInteger(body.amount) || !body.recipient?.phone)
    return reply.code(400).send({ error: 'Invalid request body' });
  const amount = BigInt(body.amount!);
  const payoutId = randomUUID();
  const { rows } = await pool.query({ ...PAYOUT_CALLER, values: [digestOf(request)] });
  const caller = rows[0];
  if (!caller?.payoutEnabled) return reply.code(403).send({ error: 'Payout is not enabled' });
  const fee = feeOf(amount, caller.feePayoutBp);
  const clearing = method === 'wave' ? 'provider_clearing_wave' : 'provider_clearing_orange_money';
  const recorded = await pool.query({
    ...PAYOUT_RECORD,
    values: [
      payoutId,
      caller.organizationId,
      method,
      amount,
      fee,
      body.recipient!.phone,
      body.recipient!.first_name ?? null,
      body.recipient!.last_name ?? null,
      body.reason ?? '',
      randomUUID(),
      clearing,
    ],
  });
  if (!recorded.rowCount) return reply.code(400).send({ error: 'Insufficient balance' });
  await wallet.payout({ method, phone: body.recipient!.phone!, amount, reference: payoutId });
  const settled = await pool.query({ ...PAYOUT_SETTLE, values: [payoutId, `sbx_payout_${payoutId}`] });
  return settled.rows[0];
});

const shutdown = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) || 0 });
