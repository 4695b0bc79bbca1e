/**
 * The floors, as their own process: a bare fastify server (the HTTP floor, /healthz) whose other
 * routes do only the SQL their operation needs, as prepared statements through `pg` (the database
 * floors). Paths mirror the gateway's, so a scenario's request works on both servers unchanged.
 * No validation beyond what the SQL needs, no logging, no rate limit: that is the point of a floor.
 *
 *   node --import tsx bench/floors/server.ts   (env: DATABASE_URL, PORT, POOL_MAX)
 */
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import pg from 'pg';
import { GET_TRANSACTION, INSERT_PRODUCTS, INSERT_TRANSACTION, KEY_FOR_CREATE, LIST_COUNT, LIST_PAGE } from './sql.js';

/** The gateway's own pool size (src/infra/prisma/database.ts), so the two compete on equal terms. */
const POOL_MAX = Number(process.env.POOL_MAX) || 10;
const MAX_LIMIT = 100;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_MAX, statement_timeout: 15_000 });
pool.on('error', () => undefined);

const digestOf = (request: FastifyRequest): string =>
  createHash('sha256').update((request.headers.authorization ?? '').replace(/^Bearer +/i, ''), 'utf8').digest('hex');

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
  if (!key || key.status !== 'active') return reply.code(401).send({ error: 'Invalid API key' });
  const id = randomUUID();
  const amount = products.reduce((sum, product) => sum + product.price * product.quantity, 0);
  const createdAt = await insertTransaction(id, key.organizationId, amount, methods, body);
  return { order_id: id, amount, method_of_payment: methods, currency: 'XOF', created_at: createdAt, transaction_status: 'pending' };
});

/** The transaction and its products in one database transaction: BEGIN, 2 inserts, COMMIT. */
async function insertTransaction(id: string, organizationId: string, amount: number, methods: string[], body: CreateBody): Promise<Date> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const customer = body.customer ?? {};
    const inserted = await client.query({
      ...INSERT_TRANSACTION,
      values: [id, organizationId, amount, methods, customer.first_name ?? null, customer.last_name ?? null, customer.phone ?? null, body.success_url ?? null, body.error_url ?? null],
    });
    const products = body.products ?? [];
    await client.query({
      ...INSERT_PRODUCTS,
      values: [id, products.map((p) => p.name), products.map((p) => p.price), products.map((p) => p.quantity), products.map((p) => p.description ?? null)],
    });
    await client.query('COMMIT');
    return inserted.rows[0].createdAt as Date;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const shutdown = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) || 0 });
