/**
 * The GraphiQL page at GET /graphql (a browser's Accept: text/html): the only thing served
 * without a token. It opens with one tab of example operations per kind of caller (a merchant
 * key, and the analyst, support and admin operator roles), each with the Authorization line to
 * fill in.
 *
 * Until a token is typed, the page answers GraphiQL's own schema question from a copy of the
 * schema it carries (the schema is public: it is printed in the repository as
 * schema/schema.graphql), so the page opens with its documentation and completion instead of a
 * 401 in the result pane; any other operation without a token is answered, in the page, with what
 * to type. Every request that leaves the page still carries the token and is authenticated by the
 * server as any other.
 */
import { introspectionFromSchema, type GraphQLSchema } from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { loadOnce } from '../domain/loadOnce.js';

// The examples are GraphQL documents codegen reads too (codegen.ts): the tests run them as typed
// documents with the principal each one is for, so an example that stops working fails a test.

/** The placeholder a newcomer replaces; the page treats any value holding `<` as "no token yet". */
const bearer = (who: string): string => JSON.stringify({ Authorization: `Bearer <${who}>` }, null, 2);

const MERCHANT_EXAMPLE = /* GraphQL */ `# A merchant API key (scopes: checkout, read or readAndWrite) reads its own organisation.
query MerchantRecentTransactions {
  transactions(limit: 5) {
    transactions { orderId amount fees status selectedPaymentMethod createdAt }
    pagination { totalCount }
  }
}`;

const ANALYST_EXAMPLE = /* GraphQL */ `# An analyst token (gateway operator-token create --role analyst) reads every
# organisation and mutates nothing. Volume by day and method over a quarter:
query AnalystVolumeByDayAndMethod($from: DateTime!, $to: DateTime!) {
  transactionStats(from: $from, to: $to, interval: DAY, groupBy: [METHOD]) {
    periodStart method count amount fees
  }
}`;

const SUPPORT_EXAMPLE = /* GraphQL */ `# A support token reads, approves or rejects payouts, releases escrow and
# redelivers webhooks. The payouts awaiting review (above 2,000,000 XOF):
query SupportPayoutsAwaitingReview {
  pendingPayouts(limit: 20) {
    payouts { orderId organizationId amount status createdAt }
    pagination { totalCount }
  }
}

# Then, with an orderId from above:
# mutation SupportApprovePayout { approvePayout(orderId: "...") { orderId status } }`;

const ADMIN_EXAMPLE = /* GraphQL */ `# The admin token (GATEWAY_ADMIN_TOKEN, printed at first start) does everything.
query AdminOrganizations {
  organizations(limit: 20) {
    organizations { id name status verified payoutEnabled }
    pagination { totalCount }
  }
}`;

/** A quarter back from today, in whole UTC days: the analyst tab's variables. */
function lastQuarter(now: Date): string {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const from = new Date(to.getTime() - 90 * 24 * 60 * 60 * 1000);
  return JSON.stringify({ from: from.toISOString(), to: to.toISOString() }, null, 2);
}

export function graphiqlOptions(now: Date): GraphiQLOptions {
  return {
    title: 'XOF Gateway GraphQL',
    defaultTabs: [{ query: MERCHANT_EXAMPLE }, { query: ANALYST_EXAMPLE, variables: lastQuarter(now) }, { query: SUPPORT_EXAMPLE }, { query: ADMIN_EXAMPLE }],
    // Each tab's comment says which token it needs; the headers editor opens with the line to fill in.
    headers: bearer('your API key or operator token'),
    defaultEditorToolsVisibility: 'headers',
  };
}

/**
 * The script that answers the page's own requests while no token is typed (see the file's
 * comment). It runs before GraphiQL's bundle, so GraphiQL's fetch goes through it.
 */
function tokenlessAnswers(endpoint: string, introspection: string): string {
  const hint = 'Type your API key or operator token in the Headers tab below: {"Authorization": "Bearer <token>"}';
  return `<script>(() => {
  const endpoint = ${JSON.stringify(endpoint)};
  const schema = ${introspection};
  const hint = ${JSON.stringify(hint)};
  const send = window.fetch.bind(window);
  const json = (body) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  const hasToken = (headers) => {
    const value = new Headers(headers || {}).get('authorization') || '';
    return /^Bearer +[A-Za-z0-9._~+/=-]+ *$/i.test(value);
  };
  window.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (url.origin !== location.origin || url.pathname !== endpoint || hasToken(init && init.headers)) return send(input, init);
    let request = {};
    try { request = JSON.parse((init && init.body) || '{}'); } catch { request = {}; }
    if (/\\b__schema\\b/.test(String(request.query || ''))) return Promise.resolve(json({ data: schema }));
    return Promise.resolve(json({ errors: [{ message: hint, extensions: { code: 'UNAUTHENTICATED' } }] }));
  };
})();</script>`;
}

/**
 * Renders the page. The renderer (@graphql-yoga/render-graphiql inlines the whole GraphiQL
 * bundle, about 41 MB of resident memory) and the schema's introspection are loaded on the first
 * page view: a production process may never serve the page.
 */
export function graphiqlRenderer(schema: GraphQLSchema, endpoint: string): (options: GraphiQLOptions) => Promise<string> {
  const page = loadOnce(() =>
    import('@graphql-yoga/render-graphiql').then((module) => ({
      render: module.renderGraphiQL,
      script: tokenlessAnswers(endpoint, JSON.stringify(introspectionFromSchema(schema)).replace(/</g, '\\u003c')),
    })),
  );
  return async (options) => {
    const { render, script } = await page();
    return render(options).replace('<head>', `<head>${script}`);
  };
}
