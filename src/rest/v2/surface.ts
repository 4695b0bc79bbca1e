/** REST v2, the published API: its contract, root, error shape and routes. */
import { projectPath } from '../../infra/projectFiles.js';
import type { RestSurface } from '../pipeline.js';
import { accountRoutes } from './accounts.js';
import { paymentLinkRoutes } from './paymentLinks.js';
import { payoutRoutes } from './payouts.js';
import { payoutBatchRoutes } from './payoutBatches.js';
import { refundRoutes } from './refunds.js';
import { transactionRoutes } from './transactions.js';

export const V2_ROOT = '/api/v2';
export const V2_DEFINITION = projectPath('openapi', 'v2.yaml');

export const v2Surface: RestSurface = {
  root: V2_ROOT,
  definition: V2_DEFINITION,
  errorBody: (message) => ({ error: message }),
  routes: { ...transactionRoutes, ...refundRoutes, ...payoutRoutes, ...payoutBatchRoutes, ...accountRoutes, ...paymentLinkRoutes },
};
