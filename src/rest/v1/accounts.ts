/** REST v1 `GET /account` (and `/account/`): the `main` account of GET /accounts, in v1's view. */
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import { listAccounts } from '../../domain/operations.js';
import { bind } from '../pipeline.js';
import { toV1MethodName } from '../../domain/paymentMethods.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';

/**
 * ONE method here, not an array: the official Python SDK (`naboopay` 1.0.2) and the generated
 * client validate `method_of_payment` as one Wallet value and refuse a list, while the Node SDK
 * (2.0.0) types an array but never checks it at run time, so one value works for all three. It is
 * the organisation's first allowed method (its preferred wallet); WAVE when none is allowed, as the
 * clients accept no empty value.
 */
const accountMethodOf = (allowed: readonly PaymentMethod[]) => toV1MethodName(allowed[0] ?? 'wave');

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
        method_of_payment: accountMethodOf(access.organization.allowedMethods),
        loyalty_credit: NO_LOYALTY_CREDIT,
      },
    };
  },
});

export const accountRoutes = { getMainAccount: mainAccount, getMainAccountWithSlash: mainAccount };
