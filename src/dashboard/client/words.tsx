/**
 * The words of the home page, the search, the capability notices and the names the server sends as
 * codes (audit actions, ledger kinds, actors, scopes and roles), in French and English (issue 30).
 * Kept beside i18n.ts rather than in it: its messages are the pages' phrases, these are tables of
 * names and the home page's sentences.
 */
import { Fragment, type ComponentChildren } from 'preact';
import type { AuditAction } from '../../domain/audit/actions.js';
import type { Lang } from './i18n.js';
import { useApp } from './ui.js';

const en = {
  home: 'Home',
  paidToday: 'Paid today',
  paidThisMonth: 'Paid this month',
  paidCount: (count: number) => (count === 1 ? '1 payment' : `${count} payments`),
  paidVolumeHint: 'Refunded payments are not counted.',
  feesOf: (fees: string) => `fees ${fees}`,
  needsAttention: 'Needs attention',
  allClear: 'Nothing needs your attention.',
  failedDeliveries: (count: number) => `${count} webhook event${count === 1 ? '' : 's'} could not be delivered (every attempt failed, last 7 days)`,
  retryingDeliveries: (count: number) => `${count} webhook deliver${count === 1 ? 'y is' : 'ies are'} waiting to be retried: your receiver did not answer`,
  payoutsAwaitingReview: (count: number) => `${count} payout${count === 1 ? ' is' : 's are'} awaiting the operator’s review`,
  latePayment: (amount: string, outcome: string) => `A payment of ${amount} was confirmed late: ${outcome}`,
  latePaymentOutcomes: {
    recorded: 'recorded on its order',
    returning: 'being returned to the payer',
    returned: 'returned to the payer',
    return_failed: 'its return failed; contact the gateway’s operator',
  } as Record<string, string>,
  capabilityNames: { transactions: 'Collecting payments', payouts: 'Payouts', wave: 'Wave', orange_money: 'Orange Money' } as Record<string, string>,
  capabilityBlocks: {
    paused_by_gateway: 'paused by the gateway’s operator (the provider may be down). Nothing to do: it comes back when they switch it on again.',
    not_enabled: 'not enabled for your organisation. Ask the gateway’s operator to enable it.',
    business_profile_incomplete: 'waiting for your business profile: the owner completes it in Settings.',
    organization_inactive: 'your organisation is suspended. Contact the gateway’s operator.',
    provider_down: 'the provider is not answering: your customers are offered the other method until it is back. The gateway’s operator has been told.',
  } as Record<string, string>,
  capabilityOff: (name: string, why: string) => `${name}: ${why}`,
  completeProfile: 'Complete the business profile',
  recentPayments: 'Recent payments',
  recentPayouts: 'Recent payouts',
  seeAll: 'See all',
  throughLink: 'through a payment link',
  // Search
  searchLabel: 'Search payments, payouts and payment links',
  searchPlaceholder: 'Order, phone, reference',
  searchButton: 'Search',
  searchTitle: 'Search',
  searchFor: (text: string) => `Results for “${text}”`,
  searchHelp:
    'An order id, a customer’s or recipient’s phone (written any way: +221 77 123 45 67, 771234567…), a name, a payment link’s name or a provider’s reference.',
  noResults: 'Nothing found.',
  // Deliveries
  deliveryWaiting: 'Waiting to retry',
  deliveryQueued: 'Queued',
  deliveryFailed: 'Failed: every attempt',
  nextAttempt: 'Next attempt',
  // Two-step set-up
  secretKept: 'This secret stays the same until two-step verification is on: an authenticator that already scanned it keeps working after a reload.',
  secretRenewed: 'A new secret was made: scan this QR code again. Codes from the previous one no longer work.',
  renewSecret: 'Make a new secret',
  // Chart
  chartVolumeAxis: 'Paid volume (XOF)',
  chartFeesAxis: 'Fees (XOF)',
  chartDaysAxis: 'Day (UTC)',
  // Roles and scopes, where they are chosen
  rolesExplained: 'What each role may do',
  scopesExplained: 'What each scope allows',
  roleHelp: {
    owner: 'Everything: the team, the business profile, the audit log, money and the integration.',
    developer: 'Reads money; manages API keys and webhooks. Cannot refund or pay out.',
    operations: 'Reads money; refunds, pays out and resends webhook deliveries. Cannot manage keys.',
    viewer: 'Reads only: no secret, no money movement.',
  } as Record<string, string>,
  scopeHelp: {
    checkout: 'Creates, reads, lists and cancels payments, and refunds them (a shop’s checkout).',
    read: 'Reads payments, payouts and balances; changes nothing.',
    write: 'Creates and cancels payments, and refunds them; reads nothing.',
    readAndWrite: 'Read and write for payments; reads balances.',
    payout: 'Sends money to wallets (payouts), reads and lists them.',
    management: 'Refunds, reads balances and manages webhooks.',
  } as Record<string, string>,
  // Names the server sends as codes
  auditActions: {
    'user.signed_in': 'Signed in',
    'user.sign_in_failed': 'Sign-in failed',
    'user.signed_out': 'Signed out',
    'user.two_factor_enabled': 'Two-step verification turned on',
    'user.two_factor_disabled': 'Two-step verification turned off',
    'member.invited': 'Member invited',
    'member.role_changed': 'Role changed',
    'member.removed': 'Member removed',
    'team.two_factor_required': 'Two-step verification required for the team',
    'api_key.created': 'API key created',
    'api_key.revoked': 'API key revoked',
    'webhook.created': 'Webhook added',
    'webhook.secret_rotated': 'Webhook secret replaced',
    'webhook.deleted': 'Webhook deleted',
    'webhook.test_sent': 'Test event sent',
    'webhook.redelivered': 'Webhook resent',
    'transaction.refunded': 'Payment refunded',
    'payout.created': 'Payout created',
    'payout_batch.created': 'Payout batch created',
    'payout_batch.started': 'Payout batch started',
    'payout_batch.item_sent': 'Payout of a batch sent',
    'payout_batch.finished': 'Payout batch finished',
    'payout_batch.cancelled': 'Payout batch cancelled',
    'business_profile.updated': 'Business profile updated',
    'payment_link.created': 'Payment link created',
    'payment_link.deactivated': 'Payment link deactivated',
    // Every action named in both languages: tsc refuses a new action left untranslated.
  } satisfies Record<AuditAction, string> as Record<string, string>,
  ledgerKinds: {
    payment: 'Payment',
    escrow_hold: 'Held in escrow',
    escrow_release: 'Released from escrow',
    refund: 'Refund',
    refund_reversal: 'Refund reversed',
    payout: 'Payout',
    payout_reversal: 'Payout reversed',
    adjustment: 'Adjustment',
  } as Record<string, string>,
  operatorRoles: { admin: 'administrator', analyst: 'analyst', support: 'support' } as Record<string, string>,
  scopeNames: { checkout: 'checkout', read: 'read', write: 'write', readAndWrite: 'read and write', payout: 'payout', management: 'management' } as Record<
    string,
    string
  >,
  /** Audit details' coded values, by key (a value not listed shows as stored). */
  detailValues: {
    secondFactor: { none: 'none', totp: 'authenticator code', recovery_code: 'recovery code' },
    step: { password: 'password', second_factor: 'second factor' },
  } as Record<string, Record<string, string>>,
  allWebhooksValue: 'every webhook',
  actorOperator: (role: string) => `gateway operator (${role})`,
  actorApiKey: (scope: string) => `API key (${scope})`,
  actorCustomer: 'customer',
  actorAnonymous: 'not signed in',
};

export type Words = typeof en;

const fr: Words = {
  home: 'Accueil',
  paidToday: 'Encaissé aujourd’hui',
  paidThisMonth: 'Encaissé ce mois-ci',
  paidCount: (count: number) => (count <= 1 ? `${count} paiement` : `${count} paiements`),
  paidVolumeHint: 'Les paiements remboursés ne sont pas comptés.',
  feesOf: (fees: string) => `frais ${fees}`,
  needsAttention: 'À traiter',
  allClear: 'Rien ne demande votre attention.',
  failedDeliveries: (count: number) =>
    `${count} événement${count > 1 ? 's' : ''} webhook non livré${count > 1 ? 's' : ''} (toutes les tentatives ont échoué, 7 derniers jours)`,
  retryingDeliveries: (count: number) => `${count} livraison${count > 1 ? 's' : ''} webhook en attente d’un nouvel essai : votre récepteur n’a pas répondu`,
  payoutsAwaitingReview: (count: number) => `${count} virement${count > 1 ? 's' : ''} en attente de validation par l’opérateur`,
  latePayment: (amount: string, outcome: string) => `Un paiement de ${amount} a été confirmé en retard : ${outcome}`,
  latePaymentOutcomes: {
    recorded: 'enregistré sur sa commande',
    returning: 'en cours de restitution au payeur',
    returned: 'restitué au payeur',
    return_failed: 'sa restitution a échoué ; contactez l’opérateur de la passerelle',
  },
  capabilityNames: { transactions: 'Encaissement', payouts: 'Virements', wave: 'Wave', orange_money: 'Orange Money' },
  capabilityBlocks: {
    paused_by_gateway:
      'suspendu par l’opérateur de la passerelle (le fournisseur est peut-être indisponible). Rien à faire : le service revient quand il le réactive.',
    not_enabled: 'non activé pour votre organisation. Demandez à l’opérateur de la passerelle de l’activer.',
    business_profile_incomplete: 'en attente de votre profil d’entreprise : le propriétaire le complète dans Paramètres.',
    organization_inactive: 'votre organisation est suspendue. Contactez l’opérateur de la passerelle.',
    provider_down:
      'le fournisseur ne répond pas : vos clients se voient proposer l’autre moyen de paiement jusqu’à son retour. L’opérateur de la passerelle est prévenu.',
  },
  capabilityOff: (name: string, why: string) => `${name} : ${why}`,
  completeProfile: 'Compléter le profil d’entreprise',
  recentPayments: 'Derniers paiements',
  recentPayouts: 'Derniers virements',
  seeAll: 'Tout voir',
  throughLink: 'par un lien de paiement',
  searchLabel: 'Rechercher paiements, virements et liens de paiement',
  searchPlaceholder: 'Commande, téléphone, référence',
  searchButton: 'Rechercher',
  searchTitle: 'Recherche',
  searchFor: (text: string) => `Résultats pour « ${text} »`,
  searchHelp:
    'Un identifiant de commande, le téléphone d’un client ou d’un bénéficiaire (écrit comme vous voulez : +221 77 123 45 67, 771234567…), un nom, le nom d’un lien de paiement ou la référence d’un fournisseur.',
  noResults: 'Aucun résultat.',
  deliveryWaiting: 'En attente d’un nouvel essai',
  deliveryQueued: 'En file d’attente',
  deliveryFailed: 'Échouée : toutes les tentatives',
  nextAttempt: 'Prochain essai',
  secretKept:
    'Ce secret reste le même jusqu’à l’activation de la vérification en deux étapes : une application qui l’a déjà scanné continue de fonctionner après un rechargement.',
  secretRenewed: 'Un nouveau secret a été créé : scannez de nouveau ce QR code. Les codes du précédent ne fonctionnent plus.',
  renewSecret: 'Créer un nouveau secret',
  chartVolumeAxis: 'Volume encaissé (XOF)',
  chartFeesAxis: 'Frais (XOF)',
  chartDaysAxis: 'Jour (UTC)',
  rolesExplained: 'Ce que chaque rôle permet',
  scopesExplained: 'Ce que chaque portée permet',
  roleHelp: {
    owner: 'Tout : l’équipe, le profil d’entreprise, le journal d’audit, l’argent et l’intégration.',
    developer: 'Consulte l’argent ; gère les clés d’API et les webhooks. Ne rembourse pas et ne fait pas de virement.',
    operations: 'Consulte l’argent ; rembourse, fait des virements et renvoie les livraisons webhook. Ne gère pas les clés.',
    viewer: 'Consultation seule : aucun secret, aucun mouvement d’argent.',
  },
  scopeHelp: {
    checkout: 'Crée, consulte, liste et annule les paiements, et les rembourse (la caisse d’une boutique).',
    read: 'Consulte les paiements, les transferts et les soldes ; ne change rien.',
    write: 'Crée et annule les paiements, et les rembourse ; ne consulte rien.',
    readAndWrite: 'Lecture et écriture des paiements ; consulte les soldes.',
    payout: 'Envoie de l’argent vers des portefeuilles (virements), les consulte et les liste.',
    management: 'Rembourse, consulte les soldes et gère les webhooks.',
  },
  auditActions: {
    'user.signed_in': 'Connexion',
    'user.sign_in_failed': 'Connexion refusée',
    'user.signed_out': 'Déconnexion',
    'user.two_factor_enabled': 'Vérification en deux étapes activée',
    'user.two_factor_disabled': 'Vérification en deux étapes désactivée',
    'member.invited': 'Membre invité',
    'member.role_changed': 'Rôle modifié',
    'member.removed': 'Membre retiré',
    'team.two_factor_required': 'Vérification en deux étapes exigée pour l’équipe',
    'api_key.created': 'Clé d’API créée',
    'api_key.revoked': 'Clé d’API révoquée',
    'webhook.created': 'Webhook ajouté',
    'webhook.secret_rotated': 'Secret du webhook remplacé',
    'webhook.deleted': 'Webhook supprimé',
    'webhook.test_sent': 'Événement de test envoyé',
    'webhook.redelivered': 'Webhook renvoyé',
    'transaction.refunded': 'Paiement remboursé',
    'payout.created': 'Virement créé',
    'payout_batch.created': 'Lot de virements créé',
    'payout_batch.started': 'Lot de virements lancé',
    'payout_batch.item_sent': 'Virement d’un lot envoyé',
    'payout_batch.finished': 'Lot de virements terminé',
    'payout_batch.cancelled': 'Lot de virements annulé',
    'business_profile.updated': 'Profil d’entreprise modifié',
    'payment_link.created': 'Lien de paiement créé',
    'payment_link.deactivated': 'Lien de paiement désactivé',
  } satisfies Record<AuditAction, string>,
  ledgerKinds: {
    payment: 'Paiement',
    escrow_hold: 'Mis sous séquestre',
    escrow_release: 'Libéré du séquestre',
    refund: 'Remboursement',
    refund_reversal: 'Remboursement annulé',
    payout: 'Virement',
    payout_reversal: 'Virement annulé',
    adjustment: 'Ajustement',
  },
  operatorRoles: { admin: 'administrateur', analyst: 'analyste', support: 'support' },
  scopeNames: { checkout: 'caisse', read: 'lecture', write: 'écriture', readAndWrite: 'lecture et écriture', payout: 'virement', management: 'gestion' },
  detailValues: {
    secondFactor: { none: 'aucun', totp: 'code d’authentification', recovery_code: 'code de secours' },
    step: { password: 'mot de passe', second_factor: 'second facteur' },
  },
  allWebhooksValue: 'tous les webhooks',
  actorOperator: (role: string) => `opérateur de la passerelle (${role})`,
  actorApiKey: (scope: string) => `clé d’API (${scope})`,
  actorCustomer: 'client',
  actorAnonymous: 'non connecté',
};

export const WORDS: Record<Lang, Words> = { en, fr };

/** An audit event's actor in the reader's language: a person's email as it is, a key or an operator by their translated scope or role. */
export function actorText(words: Words, actor: { actorKind: string; actorLabel: string; actorQualifier?: string | null }): string {
  const qualifier = actor.actorQualifier ?? '';
  switch (actor.actorKind) {
    case 'operator':
      return words.actorOperator(words.operatorRoles[qualifier] ?? qualifier);
    case 'merchant':
      return words.actorApiKey(words.scopeNames[qualifier] ?? qualifier);
    case 'customer':
      return words.actorCustomer;
    case 'anonymous':
      return words.actorAnonymous;
    default:
      return actor.actorLabel;
  }
}

/** This page's words in the reader's language. */
export const useWords = (): Words => WORDS[useApp().lang];

/** Every choice of a select (roles, scopes) with what it allows, where it is chosen. */
export function ChoicesExplained({
  title,
  names,
  help,
  label = (name) => name,
}: {
  title: string;
  names: readonly string[];
  help: Record<string, string>;
  label?: (name: string) => ComponentChildren;
}) {
  return (
    <details class="choices">
      <summary>{title}</summary>
      <dl class="pairs">
        {names.map((name) => (
          <Fragment key={name}>
            <dt>{label(name)}</dt>
            <dd>{help[name]}</dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}
