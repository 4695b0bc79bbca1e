/**
 * The home page (issue 30): balances, what was paid today and this month, what needs attention
 * (each item a link to where it is dealt with), recent activity and the 30 days' chart; the search
 * of every page; and the notice of a capability the organisation cannot use, shown before a form.
 * Every count and rule is the server's (GraphQL merchantHome, capabilities; domain/home/).
 */
import type { ComponentChildren } from 'preact';
import { gql } from '../api.js';
import {
  DashboardCapabilitiesDocument,
  DashboardHomeDocument,
  DashboardSearchDocument,
  type DashboardHomeQuery,
  type DashboardSearchQuery,
} from '../generated.js';
import { formatMoney, METHOD_NAMES } from '../i18n.js';
import { Link, navigate, useLocation } from '../router.js';
import { Loaded, Money, PageTitle, StatusBadge, Table, When, useApp, useLoad, useMay } from '../ui.js';
import { useWords } from '../words.js';
import { LinkStatusBadge } from './links.js';
import { LINK_MESSAGES } from './linksMessages.js';
import { BalanceCards, ChartSection } from './money.js';

type Home = DashboardHomeQuery['merchantHome'];
type Capability = Home['capabilities'][number];

export function HomePage() {
  const words = useWords();
  const state = useLoad(() => gql(DashboardHomeDocument), []);
  return (
    <>
      <PageTitle>{words.home}</PageTitle>
      <Loaded state={state}>
        {(data) => (
          <>
            <BalanceCards accounts={data.accounts} />
            <PaidVolumeCards home={data.merchantHome} />
            <Attention home={data.merchantHome} />
            <RecentActivity data={data} />
          </>
        )}
      </Loaded>
      <ChartSection />
    </>
  );
}

function PaidVolumeCards({ home }: { home: Home }) {
  const words = useWords();
  const { lang } = useApp();
  const card = (title: string, volume: Home['today'], name: string) => (
    <section class="card stat" data-paid-volume={name}>
      <h2>{title}</h2>
      <p class="big">
        <Money amount={volume.amount} />
      </p>
      <p class="hint">
        {words.paidCount(volume.count)} · {words.feesOf(formatMoney(lang, volume.fees))}
      </p>
    </section>
  );
  return (
    <>
      <div class="cards">
        {card(words.paidToday, home.today, 'today')}
        {card(words.paidThisMonth, home.thisMonth, 'month')}
      </div>
      <p class="hint">{words.paidVolumeHint}</p>
    </>
  );
}

function Attention({ home }: { home: Home }) {
  const words = useWords();
  const { lang } = useApp();
  const items: Array<[string, ComponentChildren]> = [];
  for (const capability of home.capabilities.filter((state) => !state.usable)) {
    items.push([`capability-${capability.capability}`, <CapabilityText capability={capability} />]);
  }
  if (home.failedDeliveries > 0)
    items.push(['failed-deliveries', <Link to="/deliveries?status=dropped">{words.failedDeliveries(home.failedDeliveries)}</Link>]);
  if (home.retryingDeliveries > 0)
    items.push(['retrying-deliveries', <Link to="/deliveries?status=pending">{words.retryingDeliveries(home.retryingDeliveries)}</Link>]);
  if (home.payoutsAwaitingReview > 0)
    items.push(['payouts-awaiting-review', <Link to="/payouts?status=pending">{words.payoutsAwaitingReview(home.payoutsAwaitingReview)}</Link>]);
  for (const late of home.latePayments) {
    items.push([
      `late-${late.transactionId}`,
      <Link to={`/transactions/${encodeURIComponent(late.transactionId)}`}>
        {words.latePayment(formatMoney(lang, late.amount), words.latePaymentOutcomes[late.outcome] ?? late.outcome)}
      </Link>,
    ]);
  }
  return (
    <section class="card attention" aria-labelledby="attention">
      <h2 id="attention">{words.needsAttention}</h2>
      {items.length === 0 ? (
        <p data-all-clear>{words.allClear}</p>
      ) : (
        <ul class="plain attention-list">
          {items.map(([key, content]) => (
            <li key={key} data-attention={key}>
              {content}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** "Payouts: not enabled for your organisation. Ask the gateway's operator…", with a link when the owner can act. */
function CapabilityText({ capability }: { capability: Capability }) {
  const words = useWords();
  const may = useMay();
  const name = words.capabilityNames[capability.capability] ?? capability.capability;
  const why = words.capabilityBlocks[capability.blockedBy ?? ''] ?? capability.blockedBy ?? '';
  return (
    <>
      {words.capabilityOff(name, why)}
      {capability.blockedBy === 'business_profile_incomplete' && may('updateBusinessProfile') && (
        <>
          {' '}
          <Link to="/settings">{words.completeProfile}</Link>
        </>
      )}
    </>
  );
}

function RecentActivity({ data }: { data: DashboardHomeQuery }) {
  const words = useWords();
  const { t } = useApp();
  return (
    <div class="cards recent">
      <section class="card" aria-labelledby="recent-payments">
        <h2 id="recent-payments">{words.recentPayments}</h2>
        {data.transactionsConnection.edges.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <ul class="plain activity">
            {data.transactionsConnection.edges.map(({ node }) => (
              <li key={node.orderId} data-recent-transaction={node.orderId}>
                <Link to={`/transactions/${encodeURIComponent(node.orderId)}`}>
                  <Money amount={node.amount} />
                </Link>{' '}
                <StatusBadge status={node.status} /> <span class="who-paid">{personOf(node.customer) || '—'}</span> <When at={node.createdAt} />
                {node.paymentLinkId && (
                  <>
                    {' '}
                    <Link to={`/links/${encodeURIComponent(node.paymentLinkId)}`} data-through-link={node.paymentLinkId}>
                      {words.throughLink}
                    </Link>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        <Link to="/transactions">{words.seeAll}</Link>
      </section>
      <section class="card" aria-labelledby="recent-payouts">
        <h2 id="recent-payouts">{words.recentPayouts}</h2>
        {data.payoutsConnection.edges.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <ul class="plain activity">
            {data.payoutsConnection.edges.map(({ node }) => (
              <li key={node.orderId} data-recent-payout={node.orderId}>
                <Link to={`/payouts/${encodeURIComponent(node.orderId)}`}>
                  <Money amount={node.amount} />
                </Link>{' '}
                <StatusBadge status={node.status} /> <span class="who-paid">{personOf(node.recipient) || '—'}</span> <When at={node.createdAt} />
              </li>
            ))}
          </ul>
        )}
        <Link to="/payouts">{words.seeAll}</Link>
      </section>
    </div>
  );
}

/** A customer or recipient as a person reads it: name, then phone. */
export function personOf(person: { firstName?: string | null; lastName?: string | null; phone?: string | null }): string {
  return [[person.firstName, person.lastName].filter(Boolean).join(' '), person.phone].filter(Boolean).join(' · ');
}

// ---------------------------------------------------------------------------------------------
// Capabilities, before a form

/**
 * Says, before a form, that a capability the form needs is off and what to do (issue 30: payouts
 * disabled were revealed only after the whole form was filled and confirmed). Renders `children`
 * (the form) only when every capability in `needs` is usable; `methods` adds a line per method off.
 */
export function CapabilityGate({ needs, methods = [], children }: { needs: string[]; methods?: string[]; children: ComponentChildren }) {
  const state = useLoad(() => gql(DashboardCapabilitiesDocument), []);
  return (
    <Loaded state={state}>
      {({ capabilities }) => {
        const blocking = capabilities.filter((state) => needs.includes(state.capability) && !state.usable);
        const methodsOff = capabilities.filter((state) => methods.includes(state.capability) && !state.usable);
        return (
          <>
            {[...blocking, ...methodsOff].map((capability) => (
              <p class="notice warning" role="status" key={capability.capability} data-capability-off={capability.capability}>
                <CapabilityText capability={capability} />
              </p>
            ))}
            {blocking.length === 0 && children}
          </>
        );
      }}
    </Loaded>
  );
}

// ---------------------------------------------------------------------------------------------
// Search

/** The search box of every page (in the header): goes to /search?q=… */
export function SearchBox() {
  const words = useWords();
  const { path, query } = useLocation();
  const submit = (event: Event) => {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget as HTMLFormElement).get('q') ?? '').trim();
    if (text) navigate(`/search?q=${encodeURIComponent(text)}`);
  };
  return (
    <search>
      <form class="search" onSubmit={submit} method="get" action="/dashboard/search" key={path === '/search' ? query.get('q') : ''}>
        <label for="global-search" class="visually-hidden">
          {words.searchLabel}
        </label>
        <input
          id="global-search"
          name="q"
          type="search"
          maxLength={100}
          placeholder={words.searchPlaceholder}
          defaultValue={path === '/search' ? (query.get('q') ?? '') : ''}
        />
        <button type="submit" class="secondary">
          {words.searchButton}
        </button>
      </form>
    </search>
  );
}

const SEARCH_RESULTS = 20;

export function SearchPage() {
  const words = useWords();
  const { query } = useLocation();
  const text = (query.get('q') ?? '').trim();
  const state = useLoad(() => (text ? gql(DashboardSearchDocument, { search: text, first: SEARCH_RESULTS }) : Promise.resolve(null)), [text]);
  return (
    <>
      <PageTitle>{text ? words.searchFor(text) : words.searchTitle}</PageTitle>
      <p class="hint">{words.searchHelp}</p>
      <Loaded state={state}>{(data) => (data ? <SearchResults data={data} /> : null)}</Loaded>
    </>
  );
}

function SearchResults({ data }: { data: DashboardSearchQuery }) {
  const words = useWords();
  const { t } = useApp();
  const transactions = data.transactionsConnection;
  const payouts = data.payoutsConnection;
  const links = data.paymentLinks;
  if (transactions.totalCount === 0 && payouts.totalCount === 0 && links.totalCount === 0) return <p data-no-results>{words.noResults}</p>;
  return (
    <>
      <section class="card" aria-labelledby="found-transactions" data-found="transactions">
        <h2 id="found-transactions">
          {t.transactions} ({transactions.totalCount})
        </h2>
        {transactions.edges.length === 0 ? (
          <p>{words.noResults}</p>
        ) : (
          <FoundTable base="/transactions" rows={transactions.edges.map(({ node }) => ({ ...node, person: node.customer }))} />
        )}
      </section>
      <section class="card" aria-labelledby="found-payouts" data-found="payouts">
        <h2 id="found-payouts">
          {t.payouts} ({payouts.totalCount})
        </h2>
        {payouts.edges.length === 0 ? (
          <p>{words.noResults}</p>
        ) : (
          <FoundTable base="/payouts" rows={payouts.edges.map(({ node }) => ({ ...node, person: node.recipient }))} />
        )}
      </section>
      <FoundLinks links={links} />
    </>
  );
}

/** The payment links found: by their name or id, or by a payment of theirs (its order id, the customer's phone...). */
function FoundLinks({ links }: { links: DashboardSearchQuery['paymentLinks'] }) {
  const { lang } = useApp();
  const words = LINK_MESSAGES[lang];
  const { noResults } = useWords();
  return (
    <section class="card" aria-labelledby="found-links" data-found="links">
      <h2 id="found-links">
        {words.title} ({links.totalCount})
      </h2>
      {links.edges.length === 0 ? (
        <p>{noResults}</p>
      ) : (
        <Table caption={words.title} stacked>
          <thead>
            <tr>
              <th scope="col">{words.name}</th>
              <th scope="col">{words.created}</th>
              <th scope="col" class="num">
                {words.amount}
              </th>
              <th scope="col">{words.status}</th>
              <th scope="col" class="num">
                {words.paidCount}
              </th>
            </tr>
          </thead>
          <tbody>
            {links.edges.map(({ node }) => (
              <tr key={node.id} data-link-id={node.id}>
                <td data-label={words.name}>
                  <Link to={`/links/${encodeURIComponent(node.id)}`}>{node.name}</Link>
                </td>
                <td data-label={words.created}>
                  <When at={node.createdAt} />
                </td>
                <td data-label={words.amount} class="num">
                  <Money amount={node.amount} />
                </td>
                <td data-label={words.status}>
                  <LinkStatusBadge status={node.status} />
                </td>
                <td data-label={words.paidCount} class="num">
                  {node.paidCount}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

interface FoundRow {
  orderId: string;
  createdAt: string;
  amount: number;
  status: string;
  selectedPaymentMethod?: string | null;
  person: { firstName?: string | null; lastName?: string | null; phone?: string | null };
}

function FoundTable({ base, rows }: { base: string; rows: FoundRow[] }) {
  const { t } = useApp();
  return (
    <Table caption={base === '/payouts' ? t.payouts : t.transactions} stacked>
      <thead>
        <tr>
          <th scope="col">{t.orderId}</th>
          <th scope="col">{t.created}</th>
          <th scope="col" class="num">
            {t.amount}
          </th>
          <th scope="col">{t.status}</th>
          <th scope="col">{base === '/payouts' ? t.recipientPhone : t.customer}</th>
          <th scope="col">{t.method}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.orderId} data-order-id={row.orderId}>
            <td data-label={t.orderId}>
              <Link to={`${base}/${encodeURIComponent(row.orderId)}`}>
                <code class="wrap">{row.orderId}</code>
              </Link>
            </td>
            <td data-label={t.created}>
              <When at={row.createdAt} />
            </td>
            <td data-label={t.amount} class="num">
              <Money amount={row.amount} />
            </td>
            <td data-label={t.status}>
              <StatusBadge status={row.status} />
            </td>
            <td data-label={base === '/payouts' ? t.recipientPhone : t.customer}>{personOf(row.person) || '—'}</td>
            <td data-label={t.method}>{row.selectedPaymentMethod ? (METHOD_NAMES[row.selectedPaymentMethod] ?? row.selectedPaymentMethod) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
