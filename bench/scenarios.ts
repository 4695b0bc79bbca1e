/**
 * What the bench measures. A scenario is a name, a request factory, what it is compared with (a
 * floor route, or the same request on another server) and a target. Adding one (refunds, payouts,
 * webhook dispatch...) is one entry in SCENARIOS, plus a floor route in floors/server.ts if it
 * needs a new one.
 *
 * Work the gateway does on its own rather than per request (draining the webhook outbox) is a
 * BacklogScenario: one entry too, made by a function that seeds the backlog, measures its floor
 * and the drain, and returns its row (webhookDispatch.ts).
 */
import { randomInt } from 'node:crypto';
import { analyticsScenario } from './analyticsScenario.js';
import { webhookDispatch } from './webhookDispatch.js';
import { exportScenario } from './exportScenario.js';
import { payoutBatchScenario } from './payoutBatchScenario.js';
import { graphScenario } from './graphScenario.js';
import { dashboardFirstPageScenario } from './dashboardFirstPageScenario.js';
import { operatorTokenScenario } from './operatorTokenScenario.js';
import { providerTransportScenario } from './providerTransportScenario.js';
import { subscriptionScenario } from './subscriptionScenario.js';
import type { AnyScenario, Baseline, BenchData, BenchRequest, RequestFactory, Target } from './shapes.js';

/** The list page the list scenarios and the GraphQL one read (page 500 = OFFSET 9,980 rows). */
const DEEP_PAGE = 500;

// Request factories --------------------------------------------------------------------------

const healthz = (): RequestFactory => () => ({ method: 'GET', path: '/healthz' });

const getTransaction =
  (data: BenchData): RequestFactory =>
  () => ({ method: 'GET', path: `/api/v2/transactions/${data.ids[randomInt(data.ids.length)]}` });

const listPage =
  (page: number) =>
  (data: BenchData): RequestFactory => {
    const { status, paymentMethod, startDate, endDate } = data.list;
    const query = new URLSearchParams({ status, payment_method: paymentMethod, start_date: startDate, end_date: endDate, page: String(page), limit: '20' });
    const request: BenchRequest = { method: 'GET', path: `/api/v2/transactions?${query}` };
    return () => request;
  };

/**
 * The dashboard's search box (issue 30): a customer's phone as a person types it, national and
 * spaced ("77 012 34 56"), one of the seed's 200,000 numbers; the list's first page of 20.
 */
const searchByPhone = (): RequestFactory => () => {
  const digits = `77${String(randomInt(200_000)).padStart(7, '0')}`;
  const written = `${digits.slice(0, 2)} ${digits.slice(2, 5)} ${digits.slice(5, 7)} ${digits.slice(7)}`;
  return { method: 'GET', path: `/api/v2/transactions?${new URLSearchParams({ search: written, limit: '20' })}` };
};

/**
 * The same search box across payment links (issue 30): a link whose payment's customer has the
 * phone, through GraphQL paymentLinks(search:) as the dashboard's search page asks it.
 */
const SEARCH_LINKS = 'query($q: String) { paymentLinks(search: $q, first: 20) { totalCount edges { node { id name status amount paidCount } } } }';
const searchLinksByPhone = (): RequestFactory => () => {
  const digits = `77${String(randomInt(200_000)).padStart(7, '0')}`;
  const written = `${digits.slice(0, 2)} ${digits.slice(2, 5)} ${digits.slice(5, 7)} ${digits.slice(7)}`;
  return { method: 'POST', path: '/graphql', body: JSON.stringify({ query: SEARCH_LINKS, variables: { q: written } }) };
};

const GRAPHQL_PAGE = `query Page($filter: TransactionFilter) {
  transactions(limit: 20, filter: $filter) {
    transactions { orderId amount status products { name price quantity } }
    pagination { totalCount }
  }
}`;

const graphqlPage = (data: BenchData): RequestFactory => {
  const body = JSON.stringify({ query: GRAPHQL_PAGE, variables: { filter: data.list } });
  return () => ({ method: 'POST', path: '/graphql', body });
};

const CATALOGUE = [
  ['Riz parfumé 5 kg', 4500],
  ['Huile 1 L', 1500],
  ['Pagne wax', 25000],
  ['Crédit téléphone', 1000],
  ['Livraison', 1500],
  ['Chaussures', 12000],
] as const;

/** Every body differs: 1 to 3 products, quantities, customer phone, offered methods. */
const createTransaction = (): RequestFactory => {
  let n = 0;
  return () => {
    n += 1;
    const products = Array.from({ length: 1 + (n % 3) }, (_, j) => {
      const [name, price] = CATALOGUE[(n + j) % CATALOGUE.length]!;
      return { name, price, quantity: 1 + ((n + j) % 4) };
    });
    const phone = `+22177${String(n % 10_000_000).padStart(7, '0')}`;
    const methods = n % 3 === 0 ? ['wave'] : ['wave', 'orange_money'];
    const body = {
      method_of_payment: methods,
      products,
      customer: { first_name: 'Awa', last_name: 'Diop', phone },
      success_url: 'https://shop.example.sn/merci',
    };
    return { method: 'POST', path: '/api/v2/transactions', body: JSON.stringify(body) };
  };
};

/**
 * Hands out each id of `ids` once, across every factory made from it (gateway and floor draw from
 * one pool: a paid transaction cannot be paid again). Running out is an error in the run's
 * figures, not a silent reuse.
 */
function consumer(ids: string[]): () => string {
  let next = 0;
  return () => ids[next++] ?? '00000000-0000-4000-8000-000000000000';
}
const consumers = new WeakMap<string[], () => string>();
const nextOf = (ids: string[]): string => {
  let take = consumers.get(ids);
  if (!take) {
    take = consumer(ids);
    consumers.set(ids, take);
  }
  return take();
};

/** The customer's checkout form, posted as the browser posts it (url-encoded, signed, same origin). */
const payByCheckout =
  (data: BenchData): RequestFactory =>
  () => {
    const orderId = nextOf(data.payable);
    const body = new URLSearchParams({ method: 'wave', phone: '+221770000001', csrf_token: data.formTokens.issue(orderId, new Date()) }).toString();
    return { method: 'POST', path: `/checkout/${orderId}`, body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  };

/** A customer opens a payment link's page (issue 30). */
const openPaymentLink =
  (data: BenchData): RequestFactory =>
  () => ({ method: 'GET', path: `/pay/${data.paymentLinkId}` });

/**
 * ...and fills it: one pending transaction per POST, then 303 into its checkout. Every customer
 * differs, and comes from its own address through the loopback proxy (the form's throttle allows
 * 30 posts per link and address in 10 minutes: one address would be refused after 30).
 */
const fillPaymentLink = (data: BenchData): RequestFactory => {
  let n = 0;
  return () => {
    n += 1;
    const customerAddress = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    const body = new URLSearchParams({
      first_name: 'Awa',
      last_name: 'Diop',
      phone: `+22177${String(n % 10_000_000).padStart(7, '0')}`,
      csrf_token: data.formTokens.issue(`payment-link:${data.paymentLinkId}`, new Date()),
    }).toString();
    return {
      method: 'POST',
      path: `/pay/${data.paymentLinkId}`,
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': customerAddress },
    };
  };
};

const refund =
  (data: BenchData): RequestFactory =>
  () => ({ method: 'GET', path: `/api/v2/refund/${nextOf(data.refundable)}` });

/**
 * A payout of 5,000 XOF, sent at once; the organisations are taken round robin, so the 50
 * requests in flight are 50 different organisations (one payout per organisation at a time).
 */
const payout = (data: BenchData): RequestFactory => {
  let n = 0;
  return () => {
    const key = data.payoutKeys[n++ % data.payoutKeys.length]!;
    const body = {
      selected_payment_method: n % 2 ? 'wave' : 'orange_money',
      amount: 5_000,
      recipient: { first_name: 'Moussa', last_name: 'Sow', phone: '+221770000001' },
      reason: 'Salaire',
    };
    return { method: 'POST', path: '/api/v2/payouts', body: JSON.stringify(body), headers: { authorization: `Bearer ${key}` } };
  };
};

// Baselines ----------------------------------------------------------------------------------

const floor = (name: string, request: Baseline['request']): Baseline => ({ name, server: 'floors', request });

const HTTP_FLOOR = floor('HTTP floor (bare fastify, small JSON)', healthz);
const GET_FLOOR = floor('get: 1 prepared statement', getTransaction);
const LIST_FLOOR = floor('list page 1: count + page', listPage(1));
const DEEP_FLOOR = floor(`list page ${DEEP_PAGE}: count + page`, listPage(DEEP_PAGE));
const CREATE_FLOOR = floor('create: key, then the row and its products (1 statement)', createTransaction);
const PAY_FLOOR = floor('pay: read, claim + attempt, the sandbox wallet, settle + posting', payByCheckout);
const PAYOUT_FLOOR = floor('payout: caller, debit + posting + row (1 statement), the sandbox wallet, completed', payout);
const REFUND_FLOOR = floor('refund: debit + posting + refund (1 statement), the sandbox wallet, outcome (1 statement)', refund);

/** The same get on a gateway whose limiter is off (see run.ts: startGatewayWithoutLimiter). */
const LIMITER_OFF: Baseline = { name: 'get, limiter off', server: 'gatewayWithoutLimiter', request: getTransaction };

// Targets (issue 6) -------------------------------------------------------------------------

const NEAR_FLOOR: Target = { kind: 'ratio', minReqRatio: 0.6, maxP99Ratio: 2 };

export const SCENARIOS: AnyScenario[] = [
  { name: 'gateway /healthz', request: healthz, baseline: HTTP_FLOOR, target: { kind: 'none' } },
  { name: 'get transaction', request: getTransaction, baseline: GET_FLOOR, target: NEAR_FLOOR },
  // The limiter's cost: the same route on a gateway without it. At 50 connections the p99 of a
  // run varies by tens of ms from run to run on 2 shared cores, so the 1 ms bound is judged on
  // sequential requests taking turns between the two gateways: the p99 there is what the limiter
  // adds to a request, not the queue it waits in, and both sides see the same machine moments.
  { name: 'rate limiter, 50 connections (get: on vs off)', request: getTransaction, baseline: LIMITER_OFF, target: { kind: 'none' } },
  {
    name: 'rate limiter, 1 connection (get: on vs off)',
    request: getTransaction,
    baseline: LIMITER_OFF,
    target: { kind: 'addedP99', maxMs: 1 },
    sequential: true,
  },
  { name: 'list page 1 (status+method+dates)', request: listPage(1), baseline: LIST_FLOOR, target: NEAR_FLOOR },
  { name: `list page ${DEEP_PAGE} (same filters)`, request: listPage(DEEP_PAGE), baseline: DEEP_FLOOR, target: NEAR_FLOOR },
  // Measured against the list's floor, no target yet: a search matches names, phones and
  // products with LIKE '%…%', which no index serves (docs/dashboard.md, Search).
  { name: 'search by phone, any writing (dashboard search box)', request: searchByPhone, baseline: LIST_FLOOR, target: { kind: 'none' } },
  { name: 'search payment links by phone (dashboard search box)', request: searchLinksByPhone, baseline: LIST_FLOOR, target: { kind: 'none' } },
  { name: 'GraphQL page of 20 + products', request: graphqlPage, baseline: LIST_FLOOR, target: { kind: 'ratio', minReqRatio: 0.5 } },
  // Issue 19: a Relay connection's keyset slice deep in the month costs no more than the deep REST page's floor allows.
  graphScenario({ name: 'GraphQL connection of 20 + products, after a mid-month cursor', baseline: DEEP_FLOOR, target: { kind: 'ratio', minReqRatio: 0.5 } }),
  { name: 'create transaction', request: createTransaction, baseline: CREATE_FLOOR, target: NEAR_FLOOR },
  { name: 'pay (checkout form, sandbox wallet)', request: payByCheckout, baseline: PAY_FLOOR, target: NEAR_FLOOR, server: 'checkout' },
  // Issue 30: a payment link's page (one statement: the link and its organisation's name, then an
  // HTML page) and its form (the link's row lock, then the one transaction-creation rule), shown
  // beside the get and create floors. No target yet: first measured on a machine shared with other
  // runs (GET 189 req/s, 1.3 ms CPU/request; POST 95 req/s, 3.8 ms CPU/request); a target needs a
  // quiet run (docs/payment-links.md#bench).
  { name: 'payment link page (GET /pay/{id})', request: openPaymentLink, baseline: GET_FLOOR, target: { kind: 'none' }, server: 'checkout' },
  { name: 'payment link form (POST /pay/{id} -> 303)', request: fillPaymentLink, baseline: CREATE_FLOOR, target: { kind: 'none' }, server: 'checkout' },
  { name: 'refund (GET /refund/{id})', request: refund, baseline: REFUND_FLOOR, target: NEAR_FLOOR },
  { name: 'payout (500 organisations, sent at once)', request: payout, baseline: PAYOUT_FLOOR, target: NEAR_FLOOR },
  // Issue 31: a batch of 5,000 payouts through the sandbox, against one organisation's single payouts one after the other.
  payoutBatchScenario({ name: 'payout batch (5,000 items, sandbox)', items: 5_000, floorPayouts: 200, minRatio: 0.7 }),
  // Issue 9: a 100,000-delivery outbox backlog to a local receiver, against the receiver's floor.
  webhookDispatch({
    name: 'webhook dispatch (100,000-delivery backlog)',
    backlog: 100_000,
    organizations: 100,
    target: { kind: 'throughput', minPerSecond: 2_000, maxSeconds: 60 },
  }),
  // Issue 19: the seeded 1,000,000 transactions as CSV, against PostgreSQL's COPY of the same rows; RSS growth <= 50 MB.
  exportScenario({ name: 'export 1,000,000 transactions (CSV)', rows: 1_000_000 }),
  // Issue 19: 10 analysts at once, transactionStats over 90 days by day and method, against the bare SQL.
  analyticsScenario({
    name: 'analytics: transactionStats 90 days by day and method (10 analysts)',
    connections: 10,
    days: 90,
    target: { kind: 'p99', maxMs: 100 },
  }),
  // Issue 19: an issued operator token (cached like API keys, read by digest on a miss) against the bootstrap token, 1 connection.
  operatorTokenScenario({ name: 'operator token lookup, 1 connection (issued vs bootstrap token)', maxAddedP99Ms: 1 }),
  // Issue 28: the one provider transport's overhead per call (a Wave payout to a local answering
  // server), against the same call as a bare fetch; 1 ms at p99 is small beside any real provider's round trip.
  providerTransportScenario({ name: 'provider transport: Wave payout call (transport vs bare fetch)', calls: 2_000, maxAddedP99Ms: 1 }),
  // Issue 31: the dashboard's first page in Chromium from an empty cache, against the same bytes from a bare server.
  dashboardFirstPageScenario({ name: 'dashboard first page, cold cache (Chromium, 360 px)', loads: 15, maxP50Ms: 1_000 }),
  // Issue 19: 1,000 SSE subscribers of one organisation, 100 payments at 5/s; delay from commit to each subscriber.
  subscriptionScenario({
    name: 'live updates: 1,000 SSE subscribers, 100 payments at 5/s',
    subscribers: 1_000,
    changes: 100,
    perSecond: 5,
    target: { kind: 'p99', maxMs: 1_000 },
  }),
];
