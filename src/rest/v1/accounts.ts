/** REST v1 `GET /account` (and `/account/`): the `main` account of GET /accounts, in v1's view. */
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import { listAccounts } from '../../domain/operations/index.js';
import { bind } from '../pipeline.js';
import { toV1MethodName } from '../../domain/paymentMethods.js';

/** This gateway has no loyalty programme; v1 clients still read the field. */
const NO_LOYALTY_CREDIT = 0;

const mainAccount = bind({
  operation: 'listAccounts',
  handle: async (ctx, access) => {
    const main = (await listAccounts(ctx, access)).find((account) => account.name === 'main');
    // Every organisation has its accounts from birth: a missing main is the 404 of GET /accounts/{id}.
    if (!main) throw new DomainError('account_not_found');
    return {
      body: {
        account_number: main.id,
        balance: toWireAmount(main.balance),
        account_is_activate: main.isActive,
        method_of_payment: access.organization.allowedMethods.map(toV1MethodName),
        loyalty_credit: NO_LOYALTY_CREDIT,
      },
    };
  },
});

export const accountRoutes = { getMainAccount: mainAccount, getMainAccountWithSlash: mainAccount };
