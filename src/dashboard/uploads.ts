/**
 * The dashboard's payout batch CSV upload (docs/payouts.md#batch-payouts), on the API origin:
 *
 * POST /dashboard/uploads/payout-batch   Content-Type: text/csv, the file's bytes as they are
 *                                         -> the draft as REST v2 reads it (`{id, status, errors...}`)
 *
 * Why a route of its own: a batch holds up to 5,000 lines and its file up to 1 MiB
 * (payoutBatches/rules.ts), while every other request of the API, GraphQL's included, is bounded at
 * 100 kB (src/http/app.ts). This route alone takes a body as large as the file limit, as the file
 * itself (no JSON string around it), and refuses a larger one before reading it, saying the file's
 * limit. A thin adapter: the dashboard session authenticates (its cookie with X-CSRF-Token, from
 * our own Origin: edge/sessionCaller.ts), the one access policy authorises (`createPayoutBatch`),
 * and the domain parses, bounds and validates the CSV exactly as for GraphQL's
 * createPayoutBatchFromCsv. Refusals are `{"error": "..."}` with the catalogue's status.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizeMerchant, type MerchantAccess } from '../domain/access/auth.js';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { createPayoutBatch } from '../domain/operations.js';
import { wireBatch } from '../domain/payoutBatches/batches.js';
import { MAX_CSV_BYTES } from '../domain/payoutBatches/rules.js';
import { enforceRateLimitOn } from '../edge/rateLimit.js';
import { sessionCaller } from '../edge/sessionCaller.js';
import { sessionTokenOf } from '../edge/sessionCookie.js';

const UPLOAD_PATH = '/dashboard/uploads/payout-batch';

const fileTooLarge = () =>
  new DomainError('body_too_large', '', {
    message: `The CSV file is larger than ${MAX_CSV_BYTES} bytes (1 MiB): split it into several batches`,
  });

const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

export async function registerDashboardUploads(app: FastifyInstance, ctx: GatewayContext): Promise<void> {
  /** Who uploads, decided before the body is read (a stranger cannot make the gateway read a megabyte). */
  const accessOf = new WeakMap<FastifyRequest, MerchantAccess<'createPayoutBatch'>>();
  await app.register(async (scope) => {
    // The file as text (UTF-8), up to the CSV limit; any other media type is 415.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_CSV_BYTES }, (_request, body, done) => done(null, body));
    // The body limit's refusal names the file's limit; every other error goes to the API's handler.
    scope.setErrorHandler((error: { code?: string; statusCode?: number }) => {
      throw error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413 ? fileTooLarge() : error;
    });
    const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
      await enforceRateLimitOn(ctx, request, reply, `POST ${UPLOAD_PATH}`);
      const token = sessionTokenOf(request.headers.cookie);
      if (!token) throw new DomainError('not_signed_in');
      const caller = await sessionCaller(ctx, token, { origin: request.headers.origin, csrfToken: request.headers['x-csrf-token'] });
      accessOf.set(request, authorizeMerchant(caller, 'createPayoutBatch'));
    };
    scope.post(UPLOAD_PATH, { onRequest }, async (request) => {
      const access = accessOf.get(request);
      if (!access) throw new DomainError('not_signed_in');
      const csv = typeof request.body === 'string' ? request.body : '';
      const { value } = await createPayoutBatch(ctx, access, { csv }, { idempotencyKey: single(request.headers['idempotency-key']) });
      return wireBatch(value);
    });
  });
}
