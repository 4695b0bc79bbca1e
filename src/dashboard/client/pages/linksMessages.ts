/** The payment links pages' words (issue 30), French and English, kept beside the pages. */
import type { Lang } from '../i18n.js';

export type LinkStatus = 'active' | 'expired' | 'used' | 'deactivated';

export interface LinkMessages {
  nav: string;
  title: string;
  intro: string;
  newLink: string;
  none: string;
  name: string;
  nameHint: string;
  amount: string;
  status: string;
  paidCount: string;
  paidAmount: string;
  created: string;
  statuses: Record<LinkStatus, string>;
  what: string;
  fixedAmount: string;
  products: string;
  productName: string;
  price: string;
  quantity: string;
  addProduct: string;
  removeProduct: string;
  methods: string;
  singleUse: string;
  singleUseHint: string;
  expiresAt: string;
  expiresHint: string;
  moreOptions: string;
  successUrl: string;
  errorUrl: string;
  feesCustomerSide: string;
  create: string;
  created_: string;
  share: string;
  shareHint: string;
  url: string;
  qr: string;
  downloadQr: string;
  message: string;
  messageText: (name: string, amount: string, merchant: string, url: string) => string;
  expires: string;
  never: string;
  use: string;
  reusable: string;
  once: string;
  payments: string;
  noPayments: string;
  customer: string;
  phone: string;
  deactivate: string;
  deactivateQuestion: string;
  deactivated: string;
  cannotCreate: string;
}

const fr: LinkMessages = {
  nav: 'Liens de paiement',
  title: 'Liens de paiement',
  intro: 'Un lien de paiement se partage par WhatsApp, SMS ou QR code : le client indique son nom et son numéro, puis paie avec Wave ou Orange Money.',
  newLink: 'Nouveau lien',
  none: 'Aucun lien pour le moment.',
  name: 'Nom du lien',
  nameHint: 'Ce que le client voit, par exemple « Boubou brodé ».',
  amount: 'Montant',
  status: 'État',
  paidCount: 'Paiements',
  paidAmount: 'Montant payé',
  created: 'Créé le',
  statuses: { active: 'Actif', expired: 'Expiré', used: 'Utilisé', deactivated: 'Désactivé' },
  what: 'Ce que le client paie',
  fixedAmount: 'Un montant fixe',
  products: 'Des produits',
  productName: 'Produit',
  price: 'Prix unitaire (XOF)',
  quantity: 'Quantité',
  addProduct: 'Ajouter un produit',
  removeProduct: 'Retirer',
  methods: 'Moyens de paiement proposés',
  singleUse: 'Un seul paiement',
  singleUseHint: 'Le lien n’accepte plus de paiement une fois payé (un acompte, une commande précise).',
  expiresAt: 'Expire le (facultatif)',
  expiresHint: 'Après cette date, le lien n’accepte plus de paiement.',
  moreOptions: 'Plus d’options',
  successUrl: 'Adresse après un paiement réussi (facultatif)',
  errorUrl: 'Adresse après un échec (facultatif)',
  feesCustomerSide: 'Les frais sont payés par le client',
  create: 'Créer le lien',
  created_: 'Lien créé. Partagez-le avec vos clients.',
  share: 'Partager',
  shareHint: 'Envoyez l’adresse ou le message, ou montrez le QR code au comptoir.',
  url: 'Adresse du lien',
  qr: 'QR code du lien',
  downloadQr: 'Télécharger le QR code (SVG)',
  message: 'Message prêt à envoyer',
  messageText: (name, amount, merchant, url) => `Bonjour ! Voici le lien pour payer « ${name} » (${amount}) à ${merchant}, avec Wave ou Orange Money : ${url}`,
  expires: 'Expiration',
  never: 'Jamais',
  use: 'Utilisation',
  reusable: 'Plusieurs paiements',
  once: 'Un seul paiement',
  payments: 'Paiements de ce lien',
  noPayments: 'Aucun paiement pour le moment.',
  customer: 'Client',
  phone: 'Téléphone',
  deactivate: 'Désactiver le lien',
  deactivateQuestion: 'Le lien n’acceptera plus aucun paiement. Les paiements déjà reçus restent. Continuer ?',
  deactivated: 'Le lien est désactivé.',
  cannotCreate: 'Votre rôle permet de voir les liens, pas d’en créer.',
};

const en: LinkMessages = {
  nav: 'Payment links',
  title: 'Payment links',
  intro: 'Share a payment link by WhatsApp, text message or QR code: the customer gives a name and number, then pays with Wave or Orange Money.',
  newLink: 'New link',
  none: 'No links yet.',
  name: 'Link name',
  nameHint: 'What the customer sees, e.g. “Embroidered boubou”.',
  amount: 'Amount',
  status: 'Status',
  paidCount: 'Payments',
  paidAmount: 'Amount paid',
  created: 'Created',
  statuses: { active: 'Active', expired: 'Expired', used: 'Used', deactivated: 'Deactivated' },
  what: 'What the customer pays',
  fixedAmount: 'A fixed amount',
  products: 'Products',
  productName: 'Product',
  price: 'Unit price (XOF)',
  quantity: 'Quantity',
  addProduct: 'Add a product',
  removeProduct: 'Remove',
  methods: 'Payment methods offered',
  singleUse: 'One payment only',
  singleUseHint: 'The link takes no more payments once paid (a deposit, one order).',
  expiresAt: 'Expires on (optional)',
  expiresHint: 'After this date the link takes no payment.',
  moreOptions: 'More options',
  successUrl: 'Address after a successful payment (optional)',
  errorUrl: 'Address after a failure (optional)',
  feesCustomerSide: 'The customer pays the fees',
  create: 'Create the link',
  created_: 'Link created. Share it with your customers.',
  share: 'Share',
  shareHint: 'Send the address or the message, or show the QR code at the counter.',
  url: 'Link address',
  qr: 'QR code of the link',
  downloadQr: 'Download the QR code (SVG)',
  message: 'Ready-to-send message',
  messageText: (name, amount, merchant, url) => `Hello! Here is the link to pay “${name}” (${amount}) to ${merchant}, with Wave or Orange Money: ${url}`,
  expires: 'Expiry',
  never: 'Never',
  use: 'Use',
  reusable: 'Several payments',
  once: 'One payment only',
  payments: 'Payments of this link',
  noPayments: 'No payments yet.',
  customer: 'Customer',
  phone: 'Phone',
  deactivate: 'Deactivate the link',
  deactivateQuestion: 'The link will take no more payments. Payments already received stay. Continue?',
  deactivated: 'The link is deactivated.',
  cannotCreate: 'Your role can see links, not create them.',
};

export const LINK_MESSAGES: Record<Lang, LinkMessages> = { fr, en };
