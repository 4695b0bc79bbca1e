/**
 * The checkout's HTML: plain server-rendered pages, no script (the CSP forbids any), one
 * stylesheet whose hash the CSP names, a single column that fits a 360 px phone. Every value that
 * comes from a merchant or a customer goes through `escapeHtml`; nothing else is interpolated.
 */
import { createHash } from 'node:crypto';
import type { PaymentMethod } from '../generated/prisma/enums.js';
import { toWireAmount } from '../domain/money.js';
import type { CheckoutView } from '../domain/payments/getCheckout.js';
import { METHOD_NAMES, MESSAGES, formatDate, type Lang } from './i18n.js';

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** Integer XOF, grouped by spaces as written in Dakar ("3 000 XOF"). */
export const formatXof = (amount: bigint): string =>
  `${toWireAmount(amount)
    .toLocaleString('fr-FR')
    .replace(/\u202f/g, ' ')} XOF`;
/** An amount that never breaks across two lines. */
export const amountHtml = (amount: bigint): string => `<span class="amount">${formatXof(amount)}</span>`;

const STYLE = `*{box-sizing:border-box}html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f3f4f6;color:#1a1a1a;line-height:1.45}
main{max-width:30rem;margin:0 auto;padding:.75rem}
.card{background:#fff;border-radius:.75rem;padding:1rem;margin:0 0 .75rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
.lang{text-align:right;margin:0 0 .5rem;font-size:.9rem}
h1{font-size:1.35rem;margin:0 0 .4rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:0 0 .6rem}
p{margin:0 0 .75rem;overflow-wrap:anywhere}
.status{display:inline-block;padding:.15rem .65rem;border-radius:1rem;background:#e6ecfb;color:#1d3a8a;font-size:.9rem}
.status[data-status=paid],.status[data-status=paid_and_blocked]{background:#dcf3e3;color:#0b5a26}
.status[data-status=cancelled],.status[data-status=refunded]{background:#eee;color:#444}
table{width:100%;border-collapse:collapse;margin:0 0 .75rem}
td{padding:.5rem 0;border-bottom:1px solid #eee;vertical-align:top;overflow-wrap:anywhere}
td.num{text-align:right;padding-left:.75rem;white-space:nowrap}
.unit,.desc{display:block;color:#555;font-size:.85rem}
.amount{white-space:nowrap}
.total{font-size:1.25rem;font-weight:600}
.note,.hint,.secure{color:#555;font-size:.85rem}
.ref code{font-size:.85rem;word-break:break-all}
fieldset{border:0;padding:0;margin:0 0 1rem;min-width:0}
legend{font-weight:600;padding:0;margin:0 0 .5rem}
.offer{display:flex;gap:.6rem;align-items:flex-start;border:1px solid #c9ccd6;border-radius:.6rem;padding:.75rem;margin:0 0 .5rem;cursor:pointer}
.offer input{flex:none;width:1.2rem;height:1.2rem;margin:.15rem 0 0}
.field{display:block;font-weight:600;margin:0 0 .35rem}
input[type=tel],input[type=text]{width:100%;font-size:1.1rem;padding:.7rem;border:1px solid #8a8fa3;border-radius:.5rem}
.hint{margin:.35rem 0 1rem}
button,.button{display:block;width:100%;font-size:1.1rem;font-weight:600;text-align:center;text-decoration:none;padding:.85rem;border:0;border-radius:.6rem;background:#0b6b3a;color:#fff;cursor:pointer}
.error{background:#fdecea;color:#8a1c12;border-radius:.5rem;padding:.75rem}
.secure{text-align:center}`;

/** The CSP names the stylesheet by hash: no inline style or script of anyone else can run. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

interface PageOptions {
  lang: Lang;
  title: string;
  /** The page's own path, for the language link (absent: no link). */
  path?: string;
}

export function page({ lang, title, path }: PageOptions, body: string): string {
  const other = MESSAGES[lang].otherLanguage;
  const switcher = path
    ? `<p class="lang"><a href="${escapeHtml(path)}?lang=${other.lang}" hreflang="${other.lang}" lang="${other.lang}">${other.label}</a></p>`
    : '';
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex,nofollow">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${switcher}${body}<p class="secure">${escapeHtml(MESSAGES[lang].secureNote)}</p></main></body></html>`;
}

/** A page with one message and, optionally, one way on. */
export function messagePage(lang: Lang, title: string, detail?: string, link?: { href: string; label: string }): string {
  return page(
    { lang, title },
    `<section class="card"><h1>${escapeHtml(title)}</h1>${detail ? `<p>${escapeHtml(detail)}</p>` : ''}${
      link ? `<p><a class="button" href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : ''
    }</section>`,
  );
}

/** A label's colon: French puts a (non-breaking) space before it. */
export const sep = (lang: Lang): string => (lang === 'fr' ? '\u00a0: ' : ': ');

const checkoutPathOf = (orderId: string): string => `/checkout/${orderId}`;

/** What is being paid for: merchant, state, products, total, reference. */
function summary(view: CheckoutView, lang: Lang): string {
  const t = MESSAGES[lang];
  const { transaction } = view;
  const rows = transaction.products
    .map((product) => {
      const description = product.description ? `<span class="desc">${escapeHtml(product.description)}</span>` : '';
      return `<tr><td>${escapeHtml(product.name)}<span class="unit">${product.quantity} × ${amountHtml(product.price)}</span>${description}</td><td class="num">${amountHtml(product.price * BigInt(product.quantity))}</td></tr>`;
    })
    .join('');
  // Fees are known once paid (from the chosen method); before, each method shows its own.
  const feesRow =
    transaction.feesCustomerSide && !view.payable && transaction.fees > 0n
      ? `<tr class="fees"><td>${escapeHtml(t.fees)}</td><td class="num">${amountHtml(transaction.fees)}</td></tr>`
      : '';
  const feesLater = view.payable && transaction.feesCustomerSide && view.offers.some((offer) => offer.fee > 0n);
  const totalLabel = feesLater ? t.subtotal : t.total;
  return `<section class="card" aria-labelledby="merchant"><h1 id="merchant">${escapeHtml(view.organizationName)}</h1>
<p class="status" data-status="${transaction.status}">${escapeHtml(t.status[transaction.status])}</p>
<table><tbody>${rows}${feesRow}</tbody></table>
<p class="total">${totalLabel}${sep(lang)}<span class="amount" data-amount="${toWireAmount(view.amountToPay)}">${formatXof(view.amountToPay)}</span></p>
${feesLater ? `<p class="note">${escapeHtml(t.feesDependOnMethod)}</p>` : ''}
<p class="ref">${escapeHtml(t.reference)}${sep(lang)}<code>${escapeHtml(transaction.id)}</code></p></section>`;
}

interface FormState {
  token: string;
  /** The form's action (the checkout path, with ?lang= when the customer chose one). */
  action: string;
  error?: string;
  method?: string;
  phone?: string;
}

function paymentForm(view: CheckoutView, lang: Lang, form: FormState): string {
  const t = MESSAGES[lang];
  if (view.offers.length === 0) {
    return `<section class="card unavailable" data-unavailable><h2>${escapeHtml(t.unavailable)}</h2><p>${escapeHtml(t.unavailableDetail)}</p></section>`;
  }
  const only = view.offers.length === 1;
  const choices = view.offers
    .map((offer) => {
      // Amounts inside a sentence: non-breaking spaces keep "4 293 XOF" on one line.
      const unbroken = (amount: bigint) => formatXof(amount).replace(/ /g, '\u00a0');
      const fee = view.transaction.feesCustomerSide && offer.fee > 0n ? unbroken(offer.fee) : null;
      const checked = only || form.method === offer.method ? ' checked' : '';
      return `<label class="offer"><input type="radio" name="method" value="${offer.method}" required${checked} data-total="${toWireAmount(offer.total)}" data-fee="${toWireAmount(offer.fee)}"><span>${escapeHtml(t.offer(METHOD_NAMES[offer.method], unbroken(offer.total), fee))}</span></label>`;
    })
    .join('');
  const error = form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : '';
  return `<form class="card" method="post" action="${escapeHtml(form.action)}" autocomplete="on">${error}
<input type="hidden" name="csrf_token" value="${escapeHtml(form.token)}">
<fieldset><legend>${escapeHtml(t.chooseMethod)}</legend>${choices}</fieldset>
<label class="field" for="phone">${escapeHtml(t.phoneLabel)}</label>
<input id="phone" type="tel" name="phone" inputmode="tel" autocomplete="tel" maxlength="32" placeholder="+221 77 123 45 67" aria-describedby="phone-hint" required value="${escapeHtml(form.phone ?? '')}">
<p id="phone-hint" class="hint">${escapeHtml(t.phoneHint)}</p>
<button type="submit">${escapeHtml(t.pay)}</button></form>`;
}

/** Which page shows a transaction's state: the checkout itself or a default redirect page. */
type StatePage = 'checkout' | 'success' | 'error';

/**
 * A transaction's state, read from the database, never from the URL: the "success" page of a
 * pending transaction says it is not paid, the "error" page of a paid one says it is paid.
 */
function stateSection(view: CheckoutView, lang: Lang, which: StatePage, merchantUrl: string | null): string {
  const t = MESSAGES[lang];
  const { transaction } = view;
  const back = merchantUrl ? `<p><a class="button" href="${escapeHtml(merchantUrl)}">${escapeHtml(t.backToMerchant)}</a></p>` : '';
  const retry = (label: string) => `<p><a class="button" href="${checkoutPathOf(transaction.id)}">${escapeHtml(label)}</a></p>`;
  switch (transaction.status) {
    case 'paid':
    case 'paid_and_blocked': {
      const method = transaction.selectedPaymentMethod
        ? (METHOD_NAMES[transaction.selectedPaymentMethod as PaymentMethod] ?? transaction.selectedPaymentMethod)
        : '';
      const when = transaction.paidAt ? `<p>${escapeHtml(t.paidOn(formatDate(transaction.paidAt, lang), method))}</p>` : '';
      const title = which === 'error' ? t.alreadyPaidTitle : t.successTitle;
      return `<section class="card" data-outcome="paid"><h2>${escapeHtml(title)}</h2>${which === 'checkout' ? '' : `<p>${escapeHtml(t.successDetail)}</p>`}${when}<p>${escapeHtml(t.amountPaid)}${sep(lang)}${amountHtml(view.amountToPay)}</p>${back}</section>`;
    }
    case 'cancelled':
      return `<section class="card" data-outcome="cancelled"><h2>${escapeHtml(t.status.cancelled)}</h2><p>${escapeHtml(t.cancelledDetail)}</p></section>`;
    case 'refunded':
      return `<section class="card" data-outcome="refunded"><h2>${escapeHtml(t.status.refunded)}</h2><p>${escapeHtml(t.refundedDetail)}</p></section>`;
    default:
      if (which === 'error')
        return `<section class="card" data-outcome="failed"><h2>${escapeHtml(t.failedTitle)}</h2><p>${escapeHtml(t.failedDetail)}</p>${retry(t.tryAgain)}</section>`;
      return `<section class="card" data-outcome="pending"><h2>${escapeHtml(t.notPaidYetTitle)}</h2><p>${escapeHtml(t.notPaidYetDetail)}</p>${retry(t.backToPayment)}</section>`;
  }
}

export interface CheckoutPageOptions {
  lang: Lang;
  /** Present while the transaction is payable: the form's token and state. */
  form?: FormState;
  /** Shown above the state of a transaction that could not be paid (a POST that came too late). */
  notice?: string;
  /** Where "back to the merchant" leads (the merchant's own success_url), or null. */
  merchantUrl: string | null;
}

/** GET /checkout/:id: the summary, then the form (pending) or the state (anything else). */
export function renderCheckout(view: CheckoutView, { lang, form, notice, merchantUrl }: CheckoutPageOptions): string {
  const t = MESSAGES[lang];
  const noticeHtml = notice ? `<p class="card error" role="alert">${escapeHtml(notice)}</p>` : '';
  const body = view.payable && form ? paymentForm(view, lang, form) : stateSection(view, lang, 'checkout', merchantUrl);
  return page({ lang, title: t.pageTitle(view.organizationName), path: checkoutPathOf(view.transaction.id) }, `${noticeHtml}${summary(view, lang)}${body}`);
}

/** GET /checkout/:id/success and /error: the default redirect pages. */
export function renderResult(view: CheckoutView, lang: Lang, which: 'success' | 'error', merchantUrl: string | null): string {
  const t = MESSAGES[lang];
  return page(
    { lang, title: t.pageTitle(view.organizationName), path: `${checkoutPathOf(view.transaction.id)}/${which}` },
    `${stateSection(view, lang, which, merchantUrl)}${summary(view, lang)}`,
  );
}

/** After a POST the wallet did not confirm yet (sandbox: a phone ending 1111). */
export function renderAwaitingConfirmation(view: CheckoutView, lang: Lang, method: PaymentMethod, phone: string, refreshHref: string): string {
  const t = MESSAGES[lang];
  return page(
    { lang, title: t.confirmTitle },
    `<section class="card" data-outcome="awaiting_confirmation"><h2>${escapeHtml(t.confirmTitle)}</h2><p>${escapeHtml(t.confirmDetail(METHOD_NAMES[method], phone))}</p>
<p><a class="button" href="${escapeHtml(refreshHref)}">${escapeHtml(t.confirmRefresh)}</a></p></section>${summary(view, lang)}`,
  );
}
