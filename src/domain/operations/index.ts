/** Every operation of the gateway: the only entry points adapters call. */
export { createTransaction } from './createTransaction.js';
export { getTransaction } from './getTransaction.js';
export { listTransactions } from './listTransactions.js';
export { cancelTransaction } from './cancelTransaction.js';
export { createOrganization } from './createOrganization.js';
export { updateOrganization } from './updateOrganization.js';
export { createApiKey } from './createApiKey.js';
export { revokeApiKey } from './revokeApiKey.js';
export { setSwitch, listSwitches } from './setSwitch.js';
export { getOrganization } from './getOrganization.js';
export { getCheckout } from './getCheckout.js';
export { listOrganizations } from './listOrganizations.js';
export { listApiKeys } from './listApiKeys.js';
export { payTransaction } from './payTransaction.js';
export { refundTransaction } from './refundTransaction.js';
export { releaseEscrow } from './releaseEscrow.js';
export { adjustAccount } from './adjustAccount.js';
