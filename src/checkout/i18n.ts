/**
 * The checkout speaks French and English. French is the default: the gateway serves West Africa
 * (Senegal, Côte d'Ivoire, Mali... all French-speaking markets), so a browser that sends no
 * Accept-Language, or prefers neither language, gets French; English when the browser prefers
 * English to French. `?lang=fr|en` overrides the header (the language links on every page).
 */
import type { PaymentMethod, TransactionStatus } from '../generated/prisma/enums.js';
import { PAYMENT_METHODS } from '../domain/enums.js';
import { PAYMENT_METHOD_CATALOGUE } from '../domain/paymentMethods.js';

export type Lang = 'fr' | 'en';

/** Longest Accept-Language header we read (browsers send well under 200 characters). */
const MAX_ACCEPT_LANGUAGE = 512;

export function pickLanguage(acceptLanguage: string | undefined, override?: unknown): Lang {
  if (override === 'fr' || override === 'en') return override;
  if (!acceptLanguage) return 'fr';
  let best: { lang: Lang; q: number } | null = null;
  for (const part of acceptLanguage.slice(0, MAX_ACCEPT_LANGUAGE).split(',')) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const primary = tag.trim().split('-')[0];
    if (primary !== 'fr' && primary !== 'en') continue;
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    // Equal weights: the first listed wins (the browser's own order).
    if (!best || q > best.q) best = { lang: primary, q };
  }
  return best?.lang ?? 'fr';
}

/** The example number, kept on one line on a narrow screen. */
const EXAMPLE_PHONE = '+221\u00a077\u00a0123\u00a045\u00a067';

/** What a payer reads for each method: its catalogue row's display name. */
export const METHOD_NAMES: Record<PaymentMethod, string> = Object.fromEntries(
  PAYMENT_METHODS.map((method) => [method, PAYMENT_METHOD_CATALOGUE[method].displayName]),
) as Record<PaymentMethod, string>;

export interface Messages {
  pageTitle: (merchant: string) => string;
  status: Record<TransactionStatus, string>;
  reference: string;
  subtotal: string;
  total: string;
  fees: string;
  feesDependOnMethod: string;
  chooseMethod: string;
  offer: (method: string, total: string, fee: string | null) => string;
  phoneLabel: string;
  phoneHint: string;
  pay: string;
  unavailable: string;
  unavailableDetail: string;
  paidOn: (date: string, method: string) => string;
  amountPaid: string;
  backToMerchant: string;
  backToPayment: string;
  cancelledDetail: string;
  refundedDetail: string;
  // POST outcomes and refusals
  confirmTitle: string;
  confirmDetail: (method: string, phone: string) => string;
  confirmRefresh: string;
  /** A provider that collects on its own page (Wave): the way there. */
  continueTitle: (method: string) => string;
  continueDetail: (method: string) => string;
  continueButton: (method: string) => string;
  /** Back from the provider's page, not confirmed yet (no phone shown: the address is the provider's to share). */
  returnPendingDetail: (method: string) => string;
  formExpiredTitle: string;
  formExpiredDetail: string;
  crossSiteTitle: string;
  crossSiteDetail: string;
  notPayableTitle: string;
  // Field errors (the domain's refusals, in the customer's words)
  errors: {
    invalid_phone: string;
    invalid_request: string;
    method_not_offered: string;
    unsupported_payment_method: string;
    payment_method_unavailable: string;
  };
  // Default success / error pages
  successTitle: string;
  successDetail: string;
  notPaidYetTitle: string;
  notPaidYetDetail: string;
  failedTitle: string;
  failedDetail: string;
  tryAgain: string;
  alreadyPaidTitle: string;
  /** Another payment of this order is waiting for its wallet (a double click, a second tab). */
  paymentInProgressTitle: string;
  // Generic pages
  notFoundTitle: string;
  linkInvalidTitle: string;
  somethingWrongTitle: string;
  somethingWrongDetail: string;
  badRequestTitle: string;
  badRequestDetail: string;
  tooLargeTitle: string;
  secureNote: string;
  otherLanguage: { lang: Lang; label: string };
}

const fr: Messages = {
  pageTitle: (merchant) => `Paiement — ${merchant}`,
  status: {
    pending: 'En attente de paiement',
    paid: 'Payé',
    paid_and_blocked: 'Payé',
    cancelled: 'Annulé',
    refunded: 'Remboursé',
  },
  reference: 'Référence de la commande',
  subtotal: 'Montant',
  total: 'Total',
  fees: 'Frais',
  feesDependOnMethod: 'Les frais dépendent du moyen de paiement choisi.',
  chooseMethod: 'Choisissez votre moyen de paiement',
  offer: (method, total, fee) => `${method} — ${total}${fee ? ` (dont ${fee} de frais)` : ''}`,
  phoneLabel: 'Numéro de téléphone du portefeuille',
  phoneHint: `Format international, par exemple ${EXAMPLE_PHONE}`,
  pay: 'Payer',
  unavailable: 'Paiement temporairement indisponible',
  unavailableDetail: 'Aucun moyen de paiement n’est disponible pour le moment. Réessayez plus tard ou contactez le marchand.',
  paidOn: (date, method) => `Payé le ${date} avec ${method}.`,
  amountPaid: 'Montant payé',
  backToMerchant: 'Retour chez le marchand',
  backToPayment: 'Retour à la page de paiement',
  cancelledDetail: 'Cette commande a été annulée par le marchand. Aucun paiement n’est possible.',
  refundedDetail: 'Cette commande a été remboursée.',
  confirmTitle: 'Confirmez le paiement sur votre téléphone',
  confirmDetail: (method, phone) =>
    `Une demande de paiement ${method} a été envoyée au ${phone}. Validez-la dans votre application, puis actualisez cette page.`,
  confirmRefresh: 'J’ai confirmé — actualiser',
  continueTitle: (method) => `Payer avec ${method}`,
  continueDetail: (method) => `Le paiement se poursuit chez ${method}. Vous reviendrez ici ensuite.`,
  continueButton: (method) => `Continuer vers ${method}`,
  returnPendingDetail: (method) => `${method} n’a pas encore confirmé le paiement. Terminez-le dans l’application ${method}, puis actualisez cette page.`,
  formExpiredTitle: 'Ce formulaire de paiement a expiré ou a été modifié',
  formExpiredDetail: 'Rien n’a été débité. Ouvrez à nouveau la page de paiement pour réessayer.',
  crossSiteTitle: 'Demande refusée',
  crossSiteDetail: 'Ce paiement doit être fait depuis la page de paiement elle-même. Rien n’a été débité.',
  notPayableTitle: 'Cette commande ne peut plus être payée',
  errors: {
    invalid_phone: `Numéro de téléphone invalide. Utilisez le format international, par exemple ${EXAMPLE_PHONE}.`,
    invalid_request: 'Choisissez un moyen de paiement.',
    method_not_offered: 'Ce moyen de paiement n’est pas proposé pour cette commande.',
    unsupported_payment_method: 'Ce moyen de paiement n’est pas proposé pour cette commande.',
    payment_method_unavailable: 'Ce moyen de paiement est temporairement indisponible. Choisissez-en un autre ou réessayez plus tard.',
  },
  successTitle: 'Paiement reçu',
  successDetail: 'Merci ! Votre paiement a bien été reçu.',
  notPaidYetTitle: 'Cette commande n’est pas encore payée',
  notPaidYetDetail: 'Aucun paiement n’a été reçu pour cette commande.',
  failedTitle: 'Le paiement n’a pas abouti',
  failedDetail: 'Aucun montant n’a été débité. Vous pouvez réessayer, avec un autre numéro ou un autre moyen de paiement.',
  tryAgain: 'Réessayer',
  alreadyPaidTitle: 'Cette commande est déjà payée',
  paymentInProgressTitle: 'Un paiement de cette commande est en cours : confirmez-le sur votre téléphone, puis rechargez cette page',
  notFoundTitle: 'Page introuvable.',
  linkInvalidTitle: 'Ce lien de paiement n’est pas valide.',
  somethingWrongTitle: 'Une erreur est survenue.',
  somethingWrongDetail: 'Rien n’a été débité. Réessayez dans un instant.',
  badRequestTitle: 'Demande invalide.',
  badRequestDetail: 'Ouvrez à nouveau la page de paiement pour réessayer.',
  tooLargeTitle: 'Demande trop volumineuse.',
  secureNote: 'Paiement sécurisé. Vous ne payez qu’après avoir validé sur votre téléphone.',
  otherLanguage: { lang: 'en', label: 'English' },
};

const en: Messages = {
  pageTitle: (merchant) => `Payment — ${merchant}`,
  status: {
    pending: 'Awaiting payment',
    paid: 'Paid',
    paid_and_blocked: 'Paid',
    cancelled: 'Cancelled',
    refunded: 'Refunded',
  },
  reference: 'Order reference',
  subtotal: 'Amount',
  total: 'Total',
  fees: 'Fees',
  feesDependOnMethod: 'Fees depend on the payment method you choose.',
  chooseMethod: 'Choose how to pay',
  offer: (method, total, fee) => `${method} — ${total}${fee ? ` (incl. ${fee} fees)` : ''}`,
  phoneLabel: 'Wallet phone number',
  phoneHint: `International format, e.g. ${EXAMPLE_PHONE}`,
  pay: 'Pay',
  unavailable: 'Payment temporarily unavailable',
  unavailableDetail: 'No payment method is available right now. Please try again later or contact the merchant.',
  paidOn: (date, method) => `Paid on ${date} with ${method}.`,
  amountPaid: 'Amount paid',
  backToMerchant: 'Back to the merchant',
  backToPayment: 'Back to the payment page',
  cancelledDetail: 'This order was cancelled by the merchant. It cannot be paid.',
  refundedDetail: 'This order was refunded.',
  confirmTitle: 'Confirm the payment on your phone',
  confirmDetail: (method, phone) => `A ${method} payment request was sent to ${phone}. Approve it in your app, then refresh this page.`,
  confirmRefresh: 'I have confirmed — refresh',
  continueTitle: (method) => `Pay with ${method}`,
  continueDetail: (method) => `The payment continues on ${method}. You will come back here afterwards.`,
  continueButton: (method) => `Continue to ${method}`,
  returnPendingDetail: (method) => `${method} has not confirmed the payment yet. Finish it in the ${method} app, then refresh this page.`,
  formExpiredTitle: 'This payment form has expired or was altered',
  formExpiredDetail: 'Nothing was charged. Open the payment page again to retry.',
  crossSiteTitle: 'Request refused',
  crossSiteDetail: 'This payment must be made from the payment page itself. Nothing was charged.',
  notPayableTitle: 'This order can no longer be paid',
  errors: {
    invalid_phone: `Invalid phone number. Use the international format, e.g. ${EXAMPLE_PHONE}.`,
    invalid_request: 'Choose a payment method.',
    method_not_offered: 'This payment method is not offered for this order.',
    unsupported_payment_method: 'This payment method is not offered for this order.',
    payment_method_unavailable: 'This payment method is temporarily unavailable. Choose another one or try again later.',
  },
  successTitle: 'Payment received',
  successDetail: 'Thank you! Your payment was received.',
  notPaidYetTitle: 'This order is not paid yet',
  notPaidYetDetail: 'No payment has been received for this order.',
  failedTitle: 'The payment did not go through',
  failedDetail: 'Nothing was charged. You can try again, with another number or another payment method.',
  tryAgain: 'Try again',
  alreadyPaidTitle: 'This order is already paid',
  paymentInProgressTitle: 'A payment of this order is in progress: confirm it on your phone, then reload this page',
  notFoundTitle: 'Page not found.',
  linkInvalidTitle: 'This payment link is not valid.',
  somethingWrongTitle: 'Something went wrong.',
  somethingWrongDetail: 'Nothing was charged. Please try again in a moment.',
  badRequestTitle: 'Invalid request.',
  badRequestDetail: 'Open the payment page again to retry.',
  tooLargeTitle: 'Request too large.',
  secureNote: 'Secure payment. You pay only after approving on your phone.',
  otherLanguage: { lang: 'fr', label: 'Français' },
};

export const MESSAGES: Record<Lang, Messages> = { fr, en };

/** Dates as a customer reads them, in UTC+0 (Dakar, Abidjan, Bamako... all on GMT). */
export function formatDate(date: Date, lang: Lang): string {
  return `${new Intl.DateTimeFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date)} GMT`;
}
