/**
 * The checkout origin (CHECKOUT_PORT): the page a merchant sends its customer to.
 *
 * GET  /checkout/:id          what is being paid for, then the payment form (pending) or the state
 * POST /checkout/:id          method + phone (url-encoded) + the form token: pays with the wallet,
 *                             then 303 to success_url (paid) or error_url (declined), or a
 *                             "confirm on your phone" page (the wallet has not answered yet)
 * GET  /checkout/:id/success  the default success_url: the state as read from the database
 * GET  /checkout/:id/error    the default error_url: idem
 * GET|POST /pay/:linkId       a payment link's page (linkPage.ts), /pay/:linkId/qr.svg its QR code
 *
 * The rules (what is offered, fees, who may pay what) are the domain's (getCheckout,
 * payTransaction); this app renders, parses and refuses forged posts. Pages carry no script.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { PaymentMethod } from '../generated/prisma/enums.js';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { getCheckout, type CheckoutView } from '../domain/payments/getCheckout.js';
import { payTransaction } from '../domain/payments/payTransaction.js';
import { settleAttemptByQuestion } from '../domain/payments/attempts.js';
import { compactPhone } from '../domain/phones.js';
import { isUuid } from '../domain/ids.js';
import { defaultErrorUrlOf, defaultSuccessUrlOf } from '../domain/transactions/transactions.js';
import { createFormTokens } from './csrf.js';
import { METHOD_NAMES, MESSAGES, pickLanguage, type Lang } from './i18n.js';
import { registerPaymentLinkPages } from './linkPage.js';
import { STYLE_HASH, messagePage, renderAwaitingConfirmation, renderCheckout, renderResult } from './render.js';

export interface CheckoutOptions {
  ctx: GatewayContext;
  logger: FastifyBaseLogger | false;
  /**
   * Key of the form tokens. Give every instance of a deployment the same one (e.g. derived from
   * the operator token); unset = a random key per process (a form rendered before a restart, or
   * by another instance, is then refused as expired: the customer reloads, nothing is paid).
   */
  formSecret?: string | Buffer;
  /** TRUSTED_PROXIES, as for the API origin: whose X-Forwarded-For gives the logged client address. */
  trustedProxies?: string[];
}

/** A checkout form is three short fields; anything bigger is not ours. */
export const FORM_BODY_LIMIT = 4096;
const FORM_FIELDS = ['csrf_token', 'method', 'phone'] as const;

type OrderRequest = FastifyRequest<{ Params: { orderId: string }; Querystring: { lang?: string } }>;
/** The return page of a provider that collects on its own page: which attempt comes back. */
type ReturnRequest = FastifyRequest<{ Params: { orderId: string }; Querystring: { lang?: string; attempt?: string } }>;

/**
 * The page's policy: nothing from elsewhere, no script at all, our one stylesheet by hash, no
 * framing; forms post to ourselves and (Chromium checks redirects of a form post too) may land on
 * the merchant's success/error origins.
 */
function contentSecurityPolicy(formTargets: string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `form-action ${["'self'", ...new Set(formTargets)].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * A payment page: no framing (clickjacking), no script or asset from elsewhere, no leaking of the
 * order address to other sites, and no caching of a page whose state changes.
 */
function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', contentSecurityPolicy())
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store');
}

/** The origin of a redirect target as a CSP source (absent when it cannot be written as one). */
function cspSourceOf(url: string): string | null {
  try {
    const { protocol, origin } = new URL(url);
    if (protocol !== 'http:' && protocol !== 'https:') return null;
    return /^[a-z]+:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin) ? origin : protocol;
  } catch {
    return null;
  }
}

/** The checkout's public origin (read each time: the settings may be filled in after start). */
function publicOriginOf(ctx: GatewayContext): string | null {
  try {
    return new URL(ctx.settings.checkoutPublicUrl).origin;
  } catch {
    return null;
  }
}

/** Where the customer goes after paying: the merchant's URL, or our default page. */
const successUrlOf = (ctx: GatewayContext, view: CheckoutView): string =>
  safeRedirect(view.transaction.successUrl) ?? defaultSuccessUrlOf(ctx.settings, view.transaction.id);
const errorUrlOf = (ctx: GatewayContext, view: CheckoutView): string =>
  safeRedirect(view.transaction.errorUrl) ?? defaultErrorUrlOf(ctx.settings, view.transaction.id);

function safeRedirect(url: string | null): string | null {
  if (!url) return null;
  return cspSourceOf(url) ? url : null;
}

/** The merchant's own success_url, for "back to the merchant" (none when it is our default page). */
function merchantUrlOf(ctx: GatewayContext, view: CheckoutView): string | null {
  const url = successUrlOf(ctx, view);
  return url === defaultSuccessUrlOf(ctx.settings, view.transaction.id) ? null : url;
}

const FIELD_ERRORS = ['invalid_phone', 'invalid_request', 'method_not_offered', 'unsupported_payment_method', 'payment_method_unavailable'] as const;
type FieldError = (typeof FIELD_ERRORS)[number];
const isFieldError = (code: string): code is FieldError => (FIELD_ERRORS as readonly string[]).includes(code);

export async function buildCheckoutApp({ ctx, logger, formSecret, trustedProxies }: CheckoutOptions): Promise<FastifyInstance> {
  const app = Fastify({
    trustProxy: trustedProxies?.length ? trustedProxies : false,
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    // A malformed address (bad percent-encoding...) is refused before routing: a page too, not JSON.
    frameworkErrors: (_error, request, reply) => {
      const lang = pickLanguage(request.headers['accept-language']);
      return withSecurityHeaders(reply as FastifyReply)
        .code(400)
        .header('content-language', lang)
        .type('text/html; charset=utf-8')
        .send(messagePage(lang, MESSAGES[lang].badRequestTitle, MESSAGES[lang].badRequestDetail));
    },
  });
  const tokens = createFormTokens(formSecret);

  // The page's form is the only body this origin reads (415 for JSON, text/plain...): bounded,
  // parsed by Node itself (no dependency); the handler reads the fields.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });

  app.addHook('onRequest', async (_request, reply) => {
    withSecurityHeaders(reply);
  });

  const langOf = (request: FastifyRequest): Lang => pickLanguage(request.headers['accept-language'], (request.query as { lang?: unknown } | undefined)?.lang);
  const html = (reply: FastifyReply, status: number, body: string, lang: Lang) =>
    reply.code(status).header('content-language', lang).type('text/html; charset=utf-8').send(body);

  // A customer never sees internals: a plain page, the details in the log with the request id.
  // Refusals by the HTTP layer (body too large, unknown content type, malformed body) are 4xx pages.
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const lang = langOf(request);
    const t = MESSAGES[lang];
    const status = error.statusCode;
    if (status && status >= 400 && status < 500) {
      return html(reply, status, messagePage(lang, status === 413 ? t.tooLargeTitle : t.badRequestTitle, t.badRequestDetail), lang);
    }
    ctx.log.error({ err: error, requestId: request.id }, 'checkout error');
    return html(reply, 500, messagePage(lang, t.somethingWrongTitle, t.somethingWrongDetail), lang);
  });
  app.setNotFoundHandler((request, reply) => {
    const lang = langOf(request);
    return html(reply, 404, messagePage(lang, MESSAGES[lang].notFoundTitle), lang);
  });

  /** A page for an order id; an unknown or malformed one is the same 404 "link not valid". */
  const withView = async (request: OrderRequest, reply: FastifyReply, render: (view: CheckoutView, lang: Lang) => Promise<unknown> | unknown) => {
    const lang = langOf(request);
    let view: CheckoutView;
    try {
      view = await getCheckout(ctx, { kind: 'customer' }, request.params.orderId);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'transaction_not_found')
        return html(reply, 404, messagePage(lang, MESSAGES[lang].linkInvalidTitle), lang);
      throw error;
    }
    return render(view, lang);
  };

  /** The form keeps a language the customer picked by link; otherwise the browser's decides. */
  const formActionOf = (request: OrderRequest, orderId: string): string => {
    const lang = request.query?.lang;
    return `/checkout/${orderId}${lang === 'fr' || lang === 'en' ? `?lang=${lang}` : ''}`;
  };

  const sendCheckout = (
    request: OrderRequest,
    reply: FastifyReply,
    view: CheckoutView,
    lang: Lang,
    status: number,
    extra: { error?: string; method?: string; phone?: string; notice?: string } = {},
  ) => {
    const form = view.payable
      ? { token: tokens.issue(view.transaction.id, ctx.clock.now()), action: formActionOf(request, view.transaction.id), ...extra }
      : undefined;
    if (form)
      reply.header(
        'content-security-policy',
        contentSecurityPolicy([successUrlOf(ctx, view), errorUrlOf(ctx, view)].map(cspSourceOf).filter((source): source is string => !!source)),
      );
    // Nothing to pay with: say so, and let monitors see it is temporary.
    const code = status === 200 && view.payable && view.offers.length === 0 ? 503 : status;
    return html(reply, code, renderCheckout(view, { lang, form, notice: extra.notice, merchantUrl: merchantUrlOf(ctx, view) }), lang);
  };

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/checkout/:orderId', async (request: OrderRequest, reply) =>
    withView(request, reply, (view, lang) => sendCheckout(request, reply, view, lang, 200)),
  );

  /**
   * Where a provider that collects on its own page (Wave) sends the customer back: the attempt is
   * settled by asking the provider (never by trusting the address), then the customer goes on to
   * the merchant's success_url (paid) or error_url (not paid); while the provider has no final
   * word, a page says so and offers to look again.
   */
  app.get('/checkout/:orderId/return', async (request: ReturnRequest, reply) => {
    const { orderId } = request.params;
    const attemptId = typeof request.query?.attempt === 'string' ? request.query.attempt : '';
    const attempt = isUuid(orderId) && isUuid(attemptId) ? await settleAttemptByQuestion(ctx, orderId, attemptId) : null;
    return withView(request, reply, (view, lang) => {
      const status = view.transaction.status;
      if (status === 'paid' || status === 'paid_and_blocked') return reply.redirect(successUrlOf(ctx, view), 303);
      if (attempt?.state === 'collecting') {
        const t = MESSAGES[lang];
        const name = METHOD_NAMES[attempt.method];
        return html(
          reply,
          200,
          messagePage(lang, t.confirmTitle, t.returnPendingDetail(name), { href: `/checkout/${orderId}/return?attempt=${attemptId}`, label: t.confirmRefresh }),
          lang,
        );
      }
      return reply.redirect(errorUrlOf(ctx, view), 303);
    });
  });

  for (const which of ['success', 'error'] as const) {
    app.get(`/checkout/:orderId/${which}`, async (request: OrderRequest, reply) =>
      withView(request, reply, (view, lang) => html(reply, 200, renderResult(view, lang, which, merchantUrlOf(ctx, view)), lang)),
    );
  }

  /**
   * Fetch metadata and Origin, when the browser sends them, must say "this origin". (Our pages
   * send no referrer, so a browser's Origin on our own form may be the literal "null": the
   * token then decides.)
   */
  const isSameOriginPost = (request: FastifyRequest): boolean => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
    const origin = request.headers.origin;
    if (origin === undefined || origin === 'null') return true;
    return origin === publicOriginOf(ctx) || origin === `${request.protocol}://${request.host}`;
  };

  app.post('/checkout/:orderId', async (request: OrderRequest, reply) => {
    const lang = langOf(request);
    const t = MESSAGES[lang];
    const { orderId } = request.params;
    const backToPayment = isUuid(orderId) ? { href: `/checkout/${orderId}`, label: t.backToPayment } : undefined;
    if (!isSameOriginPost(request)) return html(reply, 403, messagePage(lang, t.crossSiteTitle, t.crossSiteDetail, backToPayment), lang);

    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    // One value per field: a repeated field is not something our page sends.
    if (FORM_FIELDS.some((field) => form.getAll(field).length > 1))
      return html(reply, 400, messagePage(lang, t.badRequestTitle, t.badRequestDetail, backToPayment), lang);
    // The token is checked before anything is read or paid: a forged post costs one HMAC.
    if (!tokens.verify(form.get('csrf_token'), orderId, ctx.clock.now())) {
      return html(reply, 403, messagePage(lang, t.formExpiredTitle, t.formExpiredDetail, backToPayment), lang);
    }
    const method = form.get('method') ?? '';
    const phone = form.get('phone') ?? '';

    // Pay first: a successful payment only redirects, so the page's view is read only when a
    // page is rendered (an outcome other than paid, or a refusal).
    let result: Awaited<ReturnType<typeof payTransaction>>;
    try {
      result = await payTransaction(ctx, { kind: 'customer' }, orderId, { method, phone });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return refusedPayment(request, reply, error, { method, phone });
    }
    if (result.outcome === 'paid') return reply.redirect(safeRedirect(result.transaction.successUrl) ?? defaultSuccessUrlOf(ctx.settings, orderId), 303);
    // The provider collects on its own page (Wave). A link, not a 303: the browser checks a form
    // post's redirects against form-action, which names only our and the merchant's origins.
    if (result.outcome === 'pending' && result.redirectUrl && cspSourceOf(result.redirectUrl)) {
      const name = METHOD_NAMES[method as PaymentMethod] ?? method;
      return html(
        reply,
        200,
        messagePage(lang, t.continueTitle(name), t.continueDetail(name), { href: result.redirectUrl, label: t.continueButton(name) }),
        lang,
      );
    }
    return withView(request, reply, (view, lang) => {
      if (result.outcome === 'failed') return reply.redirect(errorUrlOf(ctx, view), 303);
      // The wallet has not answered (the customer has not approved on the phone yet): the
      // transaction stays pending; the page says so and links back to the checkout, which
      // shows "paid" once it is, or the form again to retry.
      return html(reply, 200, renderAwaitingConfirmation(view, lang, method as PaymentMethod, compactPhone(phone), formActionOf(request, orderId)), lang);
    });
  });

  registerPaymentLinkPages(app, { ctx, tokens, langOf, html, isSameOriginPost });

  /** A payment the domain refused: the form again with the reason, or the page of the state it is in now. */
  const refusedPayment = (request: OrderRequest, reply: FastifyReply, error: DomainError, entered: { method: string; phone: string }) => {
    const t = MESSAGES[langOf(request)];
    return withView(request, reply, async (view, lang) => {
      if (isFieldError(error.code)) return sendCheckout(request, reply, view, lang, error.status, { error: t.errors[error.code], ...entered });
      if (error.code === 'payment_in_progress') return sendCheckout(request, reply, view, lang, 409, { notice: t.paymentInProgressTitle });
      if (error.code === 'transaction_not_payable') {
        // Paid, cancelled or refunded meanwhile (another tab, a double click): show the state.
        const paid = view.transaction.status === 'paid' || view.transaction.status === 'paid_and_blocked';
        return sendCheckout(request, reply, view, lang, 409, { notice: paid ? t.alreadyPaidTitle : t.notPayableTitle });
      }
      throw error;
    });
  };
  return app;
}
