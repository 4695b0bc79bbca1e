/**
 * A payment link's page on the checkout origin (issue 30; docs/payment-links.md):
 *
 * GET  /pay/:linkId         what is sold, by whom, then the customer's name and phone (no script)
 * POST /pay/:linkId         first_name, last_name, phone (url-encoded) + the form token: makes the
 *                           transaction (payPaymentLink) and answers 303 to its checkout_url
 * GET  /pay/:linkId/qr.svg  the link's address as a QR code, drawn here (no outside service)
 *
 * A link that is used, expired or deactivated answers 410 with a page that says so; a single-use
 * link another customer holds answers 409. The rules are the domain's; this renders and parses.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { getPaymentLinkPage, payPaymentLink } from '../domain/operations.js';
import { PaymentLinkThrottledError } from '../domain/paymentLinks/payPaymentLink.js';
import type { PaymentLinkPage } from '../domain/paymentLinks/getPaymentLinkPage.js';
import { qrDrawing } from '../edge/qrCode.js';
import type { FormTokens } from './csrf.js';
import { METHOD_NAMES, MESSAGES, formatDate, type Lang } from './i18n.js';
import { LINK_MESSAGES, type LinkMessages } from './linkMessages.js';
import { amountHtml, escapeHtml, formatXof, messagePage, page, sep } from './render.js';

type LinkRequest = FastifyRequest<{ Params: { linkId: string }; Querystring: { lang?: string } }>;

export interface LinkPageHelpers {
  ctx: GatewayContext;
  tokens: FormTokens;
  langOf(request: FastifyRequest): Lang;
  html(reply: FastifyReply, status: number, body: string, lang: Lang): FastifyReply;
  isSameOriginPost(request: FastifyRequest): boolean;
}

const LINK_FORM_FIELDS = ['csrf_token', 'first_name', 'last_name', 'phone'] as const;
/** The form token names the link, so a token of one link's page (or of a checkout) does not post another. */
const tokenSubject = (linkId: string): string => `payment-link:${linkId}`;
const linkPathOf = (linkId: string): string => `/pay/${linkId}`;

interface LinkFormState {
  token: string;
  action: string;
  error?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
}

/** The link's page: the merchant, what is sold, the conditions, then the form. */
function renderLinkPage({ link, organizationName }: PaymentLinkPage, lang: Lang, form: LinkFormState): string {
  const t = LINK_MESSAGES[lang];
  const c = MESSAGES[lang];
  const rows = link.products
    .map((product) => {
      const description = product.description ? `<span class="desc">${escapeHtml(product.description)}</span>` : '';
      const price = BigInt(product.price);
      return `<tr><td>${escapeHtml(product.name)}<span class="unit">${product.quantity} × ${amountHtml(price)}</span>${description}</td><td class="num">${amountHtml(price * BigInt(product.quantity))}</td></tr>`;
    })
    .join('');
  const notes = [
    t.methods(link.methodOfPayment.map((method) => METHOD_NAMES[method]).join(', ')),
    link.feesCustomerSide ? t.feesOnTop : null,
    link.singleUse ? t.singleUse : null,
    link.expiresAt ? t.expiresOn(formatDate(link.expiresAt, lang)) : null,
  ]
    .filter((note): note is string => note !== null)
    .map((note) => `<p class="note">${escapeHtml(note)}</p>`)
    .join('');
  const error = form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : '';
  const field = (name: string, label: string, value: string | undefined, extra: string) =>
    `<label class="field" for="${name}">${label}</label><input id="${name}" type="${name === 'phone' ? 'tel' : 'text'}" name="${name}" value="${escapeHtml(value ?? '')}" ${extra}>`;
  const body = `<section class="card" aria-labelledby="merchant"><h1 id="merchant">${escapeHtml(organizationName)}</h1>
<h2>${escapeHtml(link.name)}</h2>
<table><tbody>${rows}</tbody></table>
<p class="total">${escapeHtml(c.total)}${sep(lang)}<span class="amount" data-amount="${Number(link.amount)}">${formatXof(link.amount)}</span></p>${notes}</section>
<form class="card" method="post" action="${escapeHtml(form.action)}" autocomplete="on">${error}
<p>${escapeHtml(t.intro)}</p>
<input type="hidden" name="csrf_token" value="${escapeHtml(form.token)}">
${field('first_name', escapeHtml(t.firstName), form.firstName, 'autocomplete="given-name" maxlength="200" required')}
<p class="hint"></p>
${field('last_name', `${escapeHtml(t.lastName)} <span class="hint">${escapeHtml(t.optional)}</span>`, form.lastName, 'autocomplete="family-name" maxlength="200"')}
<p class="hint"></p>
${field('phone', escapeHtml(t.phone), form.phone, 'inputmode="tel" autocomplete="tel" maxlength="32" placeholder="+221 77 123 45 67" aria-describedby="phone-hint" required')}
<p id="phone-hint" class="hint">${escapeHtml(t.phoneHint)}</p>
<button type="submit">${escapeHtml(t.submit)}</button></form>`;
  return page({ lang, title: t.pageTitle(organizationName), path: linkPathOf(link.id) }, body);
}

/** The link's address as an SVG QR code: one path of dark runs, a 4-module quiet zone, black on white. */
function qrCodeSvg(text: string): string {
  const { path, size } = qrDrawing(text, 4);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size * 8}" height="${size * 8}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}

/** Which of the form's messages a refusal of what the customer typed calls for; null: not the form's fault. */
function formProblemOf(error: DomainError): keyof LinkMessages['errors'] | null {
  if (error.code === 'invalid_phone') return 'invalid_phone';
  if (error.code === 'payment_link_invalid') return 'first_name';
  if (error.code === 'invalid_request_body') return error.message.includes('last_name') ? 'last_name_invalid' : 'first_name_invalid';
  return null;
}

export function registerPaymentLinkPages(app: FastifyInstance, { ctx, tokens, langOf, html, isSameOriginPost }: LinkPageHelpers): void {
  const formActionOf = (request: LinkRequest, linkId: string): string => {
    const lang = request.query?.lang;
    return `${linkPathOf(linkId)}${lang === 'fr' || lang === 'en' ? `?lang=${lang}` : ''}`;
  };

  /** The link's page, or what stands in for it: 404 unknown, 410 no longer takes payments. */
  const withLink = async (request: LinkRequest, reply: FastifyReply, render: (view: PaymentLinkPage, lang: Lang) => unknown) => {
    const lang = langOf(request);
    let view: PaymentLinkPage;
    try {
      view = await getPaymentLinkPage(ctx, { kind: 'customer' }, request.params.linkId);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'payment_link_not_found')
        return html(reply, 404, messagePage(lang, MESSAGES[lang].linkInvalidTitle), lang);
      throw error;
    }
    if (view.link.status !== 'active') return goneLink(reply, view, lang);
    return render(view, lang);
  };

  const goneLink = (reply: FastifyReply, view: PaymentLinkPage, lang: Lang) => {
    const t = LINK_MESSAGES[lang];
    const status = view.link.status === 'active' ? 'deactivated' : view.link.status;
    return html(reply, 410, messagePage(lang, t.gone[status], t.goneDetail(view.organizationName)), lang);
  };

  const sendForm = (request: LinkRequest, reply: FastifyReply, view: PaymentLinkPage, lang: Lang, status: number, entered: Partial<LinkFormState> = {}) => {
    const form = { token: tokens.issue(tokenSubject(view.link.id), ctx.clock.now()), action: formActionOf(request, view.link.id), ...entered };
    return html(reply, status, renderLinkPage(view, lang, form), lang);
  };

  app.get('/pay/:linkId', async (request: LinkRequest, reply) => withLink(request, reply, (view, lang) => sendForm(request, reply, view, lang, 200)));

  app.get('/pay/:linkId/qr.svg', async (request: LinkRequest, reply) => {
    const lang = langOf(request);
    try {
      const { link } = await getPaymentLinkPage(ctx, { kind: 'customer' }, request.params.linkId);
      // The image never changes for a link: cacheable, unlike the pages.
      return reply.code(200).header('cache-control', 'public, max-age=86400').type('image/svg+xml; charset=utf-8').send(qrCodeSvg(link.url));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'payment_link_not_found')
        return html(reply, 404, messagePage(lang, MESSAGES[lang].linkInvalidTitle), lang);
      throw error;
    }
  });

  app.post('/pay/:linkId', async (request: LinkRequest, reply) => {
    const lang = langOf(request);
    const c = MESSAGES[lang];
    const t = LINK_MESSAGES[lang];
    const { linkId } = request.params;
    const back = { href: linkPathOf(encodeURIComponent(linkId)), label: c.backToPayment };
    if (!isSameOriginPost(request)) return html(reply, 403, messagePage(lang, c.crossSiteTitle, c.crossSiteDetail, back), lang);
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    if (LINK_FORM_FIELDS.some((field) => form.getAll(field).length > 1))
      return html(reply, 400, messagePage(lang, c.badRequestTitle, c.badRequestDetail, back), lang);
    if (!tokens.verify(form.get('csrf_token'), tokenSubject(linkId), ctx.clock.now()))
      return html(reply, 403, messagePage(lang, c.formExpiredTitle, c.formExpiredDetail, back), lang);
    const entered = { firstName: form.get('first_name') ?? '', lastName: form.get('last_name') ?? '', phone: form.get('phone') ?? '' };
    try {
      const made = await payPaymentLink(ctx, { kind: 'customer' }, linkId, { ...entered, clientAddress: request.ip });
      return reply.redirect(made.checkoutUrl, 303);
    } catch (error) {
      if (error instanceof PaymentLinkThrottledError) {
        const seconds = Math.max(1, Math.ceil(error.retryAfterMs / 1000));
        reply.header('retry-after', seconds);
        return html(reply, 429, messagePage(lang, t.throttledTitle, t.throttledDetail(Math.ceil(seconds / 60)), back), lang);
      }
      if (!(error instanceof DomainError)) throw error;
      const fieldProblem = formProblemOf(error);
      if (fieldProblem) {
        const message = t.errors[fieldProblem];
        return withLink(request, reply, (view, lang) => sendForm(request, reply, view, lang, 400, { ...entered, error: message }));
      }
      // Gone, as the fresh read below shows it; read as still active (it lapsed between the two, at
      // its expiry), it is answered gone all the same, never left without an answer.
      if (error.code === 'payment_link_not_found' || error.code === 'payment_link_gone')
        return withLink(request, reply, (view, lang) => goneLink(reply, view, lang));
      if (error.code === 'payment_link_in_use') return html(reply, 409, messagePage(lang, t.inUseTitle, t.inUseDetail), lang);
      // The transaction rule refused (limits, switches, the organisation's state): nothing was made.
      // The customer has no credential to fix: an organisation's 401 is a 403 here, any 5xx a 503.
      request.log.info({ code: error.code, linkId }, 'payment link refused a payment');
      const status = error.status >= 500 ? 503 : error.status === 401 ? 403 : error.status;
      return withLink(request, reply, (view, lang) =>
        html(reply, status, messagePage(lang, t.unavailableTitle, t.unavailableDetail(view.organizationName)), lang),
      );
    }
  });
}
