/**
 * The checkout origin (CHECKOUT_PORT): the page a merchant sends its customer to. This first
 * version shows what is being paid for and the transaction's state; paying on the page (the
 * method/phone form of DESIGN.md) comes with the checkout issue.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { toWireAmount } from '../domain/money.js';
import { getCheckout, type CheckoutView } from '../domain/operations/getCheckout.js';

export interface CheckoutOptions {
  ctx: GatewayContext;
  logger: FastifyBaseLogger | false;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

const formatXof = (amount: bigint): string => `${toWireAmount(amount).toLocaleString('fr-FR').replace(/\u202f/g, ' ')} XOF`;

const STATUS_TEXT: Record<string, string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  paid_and_blocked: 'Paid',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
table{width:100%;border-collapse:collapse}td{padding:.4rem 0;border-bottom:1px solid #eee}td:last-child{text-align:right}
.total{font-size:1.4rem;font-weight:600}.status{display:inline-block;padding:.2rem .6rem;border-radius:1rem;background:#eef}</style>
</head><body>${body}</body></html>`;
}

export function renderCheckout(view: CheckoutView): string {
  const { transaction } = view;
  const rows = transaction.products
    .map((product) => `<tr><td>${escapeHtml(product.name)} × ${product.quantity}</td><td>${formatXof(product.price * BigInt(product.quantity))}</td></tr>`)
    .join('');
  const fees = transaction.feesCustomerSide && transaction.fees > 0n ? `<tr><td>Fees</td><td>${formatXof(transaction.fees)}</td></tr>` : '';
  return page(
    `Pay ${view.organizationName}`,
    `<h1>${escapeHtml(view.organizationName)}</h1>
<p class="status" data-status="${transaction.status}">${STATUS_TEXT[transaction.status] ?? transaction.status}</p>
<table>${rows}${fees}</table>
<p class="total">Total: <span data-amount="${toWireAmount(view.amountToPay)}">${formatXof(view.amountToPay)}</span></p>`,
  );
}

export async function buildCheckoutApp({ ctx, logger }: CheckoutOptions): Promise<FastifyInstance> {
  const app = Fastify({ ...(logger ? { loggerInstance: logger } : { logger: false }) });
  app.addHook('onRequest', async (_request, reply) => {
    // A payment page: no framing (clickjacking), no script or asset from elsewhere, no leaking
    // of the order address to other sites, and no caching of a page whose state changes.
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'");
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
  });
  // A customer never sees internals: a plain page, the details in the log with the request id.
  app.setErrorHandler((error, request, reply) => {
    ctx.log.error({ err: error, requestId: request.id }, 'checkout error');
    return reply.code(500).type('text/html; charset=utf-8').send(page('Error', '<h1>Something went wrong.</h1><p>Please try again in a moment.</p>'));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('text/html; charset=utf-8').send(page('Not found', '<h1>Page not found.</h1>')));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get<{ Params: { orderId: string } }>('/checkout/:orderId', async (request, reply) => {
    try {
      const view = await getCheckout(ctx, request.params.orderId);
      return reply.type('text/html; charset=utf-8').send(renderCheckout(view));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'transaction_not_found') {
        return reply.code(404).type('text/html; charset=utf-8').send(page('Not found', '<h1>This payment link is not valid.</h1>'));
      }
      throw error;
    }
  });
  return app;
}
