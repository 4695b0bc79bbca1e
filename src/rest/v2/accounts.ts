/** REST v2 account routes: GET /accounts (a bare array), /accounts/stats, /accounts/{id}. */
import { getAccount, getAccountStats, listAccounts } from '../../domain/operations.js';
import { bind } from '../pipeline.js';
import { accountShape, accountStatsShape } from './shapes.js';

export const accountRoutes = {
  listAccounts: bind({
    operation: 'listAccounts',
    handle: async (ctx, access) => ({ body: (await listAccounts(ctx, access)).map(accountShape) }),
  }),

  // /accounts/stats is a static route: the router prefers it to /accounts/{id} whatever the order.
  getAccountStats: bind({
    operation: 'getAccountStats',
    handle: async (ctx, access) => ({ body: accountStatsShape(await getAccountStats(ctx, access)) }),
  }),

  getAccount: bind({
    operation: 'getAccount',
    handle: async (ctx, access, { params }) => ({ body: accountShape(await getAccount(ctx, access, params.id ?? '')) }),
  }),
};
