/** The payment link page's words, French and English (the checkout's languages: i18n.ts). */
import type { PaymentLinkStatus } from '../domain/paymentLinks/paymentLinks.js';
import type { Lang } from './i18n.js';

export interface LinkMessages {
  pageTitle: (merchant: string) => string;
  intro: string;
  firstName: string;
  lastName: string;
  optional: string;
  phone: string;
  phoneHint: string;
  submit: string;
  methods: (names: string) => string;
  singleUse: string;
  expiresOn: (date: string) => string;
  feesOnTop: string;
  gone: Record<Exclude<PaymentLinkStatus, 'active'>, string>;
  goneDetail: (merchant: string) => string;
  inUseTitle: string;
  inUseDetail: string;
  unavailableTitle: string;
  unavailableDetail: (merchant: string) => string;
  throttledTitle: string;
  throttledDetail: (minutes: number) => string;
  errors: { invalid_phone: string; first_name: string; first_name_invalid: string; last_name_invalid: string };
}

const fr: LinkMessages = {
  pageTitle: (merchant) => `Payer ${merchant}`,
  intro: 'Indiquez votre nom et votre numéro, puis choisissez votre moyen de paiement à l’étape suivante.',
  firstName: 'Prénom',
  lastName: 'Nom',
  optional: '(facultatif)',
  phone: 'Numéro de téléphone',
  phoneHint: 'Format international, par exemple +221\u00a077\u00a0123\u00a045\u00a067',
  submit: 'Continuer vers le paiement',
  methods: (names) => `Moyens de paiement acceptés\u00a0: ${names}`,
  singleUse: 'Ce lien ne peut être payé qu’une seule fois.',
  expiresOn: (date) => `Valable jusqu’au ${date}.`,
  feesOnTop: 'Les frais du moyen de paiement s’ajoutent au montant.',
  gone: {
    used: 'Ce lien de paiement a déjà été payé',
    expired: 'Ce lien de paiement a expiré',
    deactivated: 'Ce lien de paiement n’est plus actif',
  },
  goneDetail: (merchant) => `Il n’accepte plus de paiement. Rien n’a été débité. Contactez ${merchant} pour obtenir un nouveau lien.`,
  inUseTitle: 'Ce lien est en cours de paiement par une autre personne',
  inUseDetail: 'Il ne peut être payé qu’une seule fois. Rien n’a été débité. Réessayez plus tard ou contactez le marchand.',
  unavailableTitle: 'Ce lien ne peut pas être payé pour le moment',
  unavailableDetail: (merchant) => `Rien n’a été débité. Réessayez plus tard ou contactez ${merchant}.`,
  throttledTitle: 'Trop de tentatives depuis votre connexion',
  throttledDetail: (minutes) => `Rien n’a été débité. Réessayez dans ${minutes}\u00a0minute${minutes > 1 ? 's' : ''}.`,
  errors: {
    invalid_phone: 'Numéro invalide. Utilisez le format international, par exemple +221\u00a077\u00a0123\u00a045\u00a067.',
    first_name: 'Indiquez votre prénom.',
    first_name_invalid: 'Prénom trop long ou illisible (200\u00a0caractères au plus).',
    last_name_invalid: 'Nom trop long ou illisible (200\u00a0caractères au plus).',
  },
};

const en: LinkMessages = {
  pageTitle: (merchant) => `Pay ${merchant}`,
  intro: 'Enter your name and number, then choose how to pay on the next step.',
  firstName: 'First name',
  lastName: 'Last name',
  optional: '(optional)',
  phone: 'Phone number',
  phoneHint: 'International format, e.g. +221\u00a077\u00a0123\u00a045\u00a067',
  submit: 'Continue to payment',
  methods: (names) => `Accepted payment methods: ${names}`,
  singleUse: 'This link can be paid only once.',
  expiresOn: (date) => `Valid until ${date}.`,
  feesOnTop: 'The payment method’s fees are added to the amount.',
  gone: {
    used: 'This payment link has already been paid',
    expired: 'This payment link has expired',
    deactivated: 'This payment link is no longer active',
  },
  goneDetail: (merchant) => `It takes no more payments. Nothing was charged. Contact ${merchant} for a new link.`,
  inUseTitle: 'Someone else is paying this link right now',
  inUseDetail: 'It can be paid only once. Nothing was charged. Try again later or contact the merchant.',
  unavailableTitle: 'This link cannot be paid right now',
  unavailableDetail: (merchant) => `Nothing was charged. Try again later or contact ${merchant}.`,
  throttledTitle: 'Too many attempts from your connection',
  throttledDetail: (minutes) => `Nothing was charged. Try again in ${minutes}\u00a0minute${minutes > 1 ? 's' : ''}.`,
  errors: {
    invalid_phone: 'Invalid phone number. Use the international format, e.g. +221\u00a077\u00a0123\u00a045\u00a067.',
    first_name: 'Enter your first name.',
    first_name_invalid: 'First name too long or unreadable (200\u00a0characters at most).',
    last_name_invalid: 'Last name too long or unreadable (200\u00a0characters at most).',
  },
};

export const LINK_MESSAGES: Record<Lang, LinkMessages> = { fr, en };
