/** Assembles the schema: importing a type's file registers it on the builder. */
import './scalars.js';
import './enums.js';
import './pagination.js';
import './transaction.js';
import './organization.js';
import './apiKey.js';
import './operatorToken.js';
import './switch.js';
import './refund.js';
import './account.js';
import './payment.js';
import './payout.js';
import './payoutBatch.js';
import './webhook.js';
import './providerCall.js';
import './providers.js';
import './analytics.js';
import './subscription.js';
import './merchantUser.js';
import './invitation.js';
import './twoFactor.js';
import './auditEvent.js';
import './paymentLink.js';
import './home.js';
import { builder } from '../builder.js';

export const schema = builder.toSchema({ sortSchema: true });
