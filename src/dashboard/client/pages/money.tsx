/**
 * Money: the overview (balances and the daily volume chart), transactions (the API's list filters,
 * a CSV export of what the list shows, a detail page with refund), payouts (list, detail, create
 * with a confirmation step) and balances with their ledger entries.
 */
import { useMemo, useState } from 'preact/hooks';
import { gql } from '../api.js';
import {
  DashboardAccountsDocument,
  DashboardCreatePayoutDocument,
  DashboardPayoutDocument,
  DashboardPayoutsDocument,
  DashboardRefundDocument,
  DashboardStatsDocument,
  DashboardTransactionDocument,
  DashboardTransactionsDocument,
  type DashboardAccountsQuery,
  type DashboardStatsQuery,
  type DashboardTransactionQuery,
  type PaymentMethod,
  type PayoutFilter,
  type TransactionFilter,
} from '../generated.js';
import { formatDay, formatMoney, METHOD_NAMES, STATUS_NAMES, type Lang } from '../i18n.js';
import { Link, navigate, useLocation } from '../router.js';
import { isPaidVolume } from '../../../domain/home/paidVolume.js';
import { useWords } from '../words.js';
import { CapabilityGate, personOf } from './home.js';
import { Alert, ConfirmButton, Field, Loaded, Money, Notice, PageTitle, Select, StatusBadge, Table, When, useAction, useApp, useLoad, useMay } from '../ui.js';

const PAGE_SIZE = 20;
const TRANSACTION_STATUSES = ['pending', 'paid', 'paid_and_blocked', 'cancelled', 'refunded'] as const;
const PAYOUT_STATUSES = ['pending', 'completed', 'failed', 'cancelled'] as const;
const METHODS = ['wave', 'orange_money'] as const;
const CHART_DAYS = 30;
const DAY_MS = 86_400_000;

/** A fresh key per confirmed action: a retry of the same click replays, a new click is a new action. */
const idempotencyKey = () => crypto.randomUUID();

// ---------------------------------------------------------------------------------------------
// Overview: the balances and the chart (the home page, pages/home.tsx, shows both)

/** The 30 days' chart in its card, loading its own figures. */
export function ChartSection() {
  const { t } = useApp();
  const to = useMemo(() => new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS), []);
  const from = new Date(to.getTime() - CHART_DAYS * DAY_MS);
  const stats = useLoad(() => gql(DashboardStatsDocument, { from: from.toISOString(), to: to.toISOString() }), []);
  return (
    <section class="card">
      <h2>{t.volumeChart}</h2>
      <Loaded state={stats}>{(data) => <VolumeChart rows={data.transactionStats} from={from} />}</Loaded>
    </section>
  );
}

export function BalanceCards({ accounts }: { accounts: Array<Pick<DashboardAccountsQuery['accounts'][number], 'id' | 'name' | 'balance'>> }) {
  const { t } = useApp();
  return (
    <div class="cards">
      {accounts.map((account) => (
        <section class="card stat" key={account.id} data-account={account.name}>
          <h2>{account.name === 'escrow' ? t.escrowAccount : t.mainAccount}</h2>
          <p class="big">
            <Money amount={account.balance} />
          </p>
        </section>
      ))}
    </div>
  );
}

interface Day {
  start: Date;
  volume: number;
  fees: number;
}

/** Per UTC day of the window: paid volume and fees (every day, zero when nothing was paid), by the domain's rule of paid volume. */
function daysOf(rows: DashboardStatsQuery['transactionStats'], from: Date): Day[] {
  const days: Day[] = Array.from({ length: CHART_DAYS }, (_, index) => ({ start: new Date(from.getTime() + index * DAY_MS), volume: 0, fees: 0 }));
  for (const row of rows) {
    if (!isPaidVolume(row.status)) continue;
    const day = days[Math.floor((new Date(row.periodStart).getTime() - from.getTime()) / DAY_MS)];
    if (!day) continue;
    day.volume += row.amount;
    day.fees += row.fees;
  }
  return days;
}

/**
 * Two panels over the same days, each with its own labelled axis in XOF (issue 30: volume and fees
 * had been drawn on unrelated scales with no axis): fees are a hundredth of the volume, so on one
 * scale they would not be seen, and on two unlabelled ones they were misread. A text summary and
 * each bar's title give the figures to screen readers.
 */
function VolumeChart({ rows, from }: { rows: DashboardStatsQuery['transactionStats']; from: Date }) {
  const { t, lang } = useApp();
  const words = useWords();
  const days = daysOf(rows, from);
  const totalVolume = days.reduce((sum, day) => sum + day.volume, 0);
  const totalFees = days.reduce((sum, day) => sum + day.fees, 0);
  if (totalVolume === 0) return <p>{t.chartEmpty}</p>;
  const summary = t.chartSummary(formatMoney(lang, totalVolume), formatMoney(lang, totalFees), CHART_DAYS);
  return (
    <figure class="chart" aria-label={summary}>
      <BarPanel days={days} value={(day) => day.volume} title={words.chartVolumeAxis} kind="volume" />
      <BarPanel days={days} value={(day) => day.fees} title={words.chartFeesAxis} kind="fees" />
      <figcaption>
        <span class="key key-volume">{t.volume}</span> <span class="key key-fees">{t.fees}</span> — {summary} {words.paidVolumeHint}
      </figcaption>
    </figure>
  );
}

const PANEL = { width: 400, height: 130, left: 52, bottom: 22, top: 8 };

/** A round top for the axis (1, 2 or 5 times a power of ten), so its ticks read as plain numbers. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value) ?? 10 * power;
}

function BarPanel({ days, value, title, kind }: { days: Day[]; value: (day: Day) => number; title: string; kind: 'volume' | 'fees' }) {
  const { lang, t } = useApp();
  const words = useWords();
  const compact = new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-US', { notation: 'compact', maximumFractionDigits: 1 });
  const top = niceCeiling(Math.max(...days.map(value)));
  const plotWidth = PANEL.width - PANEL.left;
  const plotHeight = PANEL.height - PANEL.bottom - PANEL.top;
  const slot = plotWidth / days.length;
  const y = (amount: number) => PANEL.top + plotHeight - (amount / top) * plotHeight;
  const ticks = [0, top / 2, top];
  const labelled = [0, Math.floor(days.length / 2), days.length - 1];
  return (
    <div class="chart-panel" data-chart={kind}>
      <p class="chart-title">
        <span class={`key key-${kind}`}>{title}</span>
      </p>
      <svg viewBox={`0 0 ${PANEL.width} ${PANEL.height}`} role="img" aria-label={`${title} — ${words.chartDaysAxis}`}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid-line" x1={PANEL.left} y1={y(tick)} x2={PANEL.width} y2={y(tick)} />
            <text class="axis-label" x={PANEL.left - 6} y={y(tick) + 4} text-anchor="end">
              {compact.format(tick)}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const amount = value(day);
          return (
            <rect
              key={index}
              class={`bar bar-${kind}`}
              x={PANEL.left + index * slot + 1}
              y={y(amount)}
              width={Math.max(slot - 2, 1)}
              height={PANEL.top + plotHeight - y(amount)}
            >
              <title>{`${formatDay(lang, day.start.toISOString())} — ${kind === 'volume' ? t.volume : t.fees}: ${formatMoney(lang, amount)}`}</title>
            </rect>
          );
        })}
        <line class="axis" x1={PANEL.left} y1={PANEL.top + plotHeight} x2={PANEL.width} y2={PANEL.top + plotHeight} />
        <line class="axis" x1={PANEL.left} y1={PANEL.top} x2={PANEL.left} y2={PANEL.top + plotHeight} />
        {labelled.map((index) => (
          <text
            key={index}
            class="axis-label"
            x={PANEL.left + (index + 0.5) * slot}
            y={PANEL.height - 6}
            text-anchor={index === 0 ? 'start' : index === days.length - 1 ? 'end' : 'middle'}
          >
            {formatDay(lang, days[index]!.start.toISOString())}
          </text>
        ))}
      </svg>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Filters shared by the lists and their CSV export

/** The list's filters live in the address (shareable, back button), in the v2 API's names. */
const FILTER_FIELDS = [
  'status',
  'payment_method',
  'search',
  'start_date',
  'end_date',
  'min_amount',
  'max_amount',
  'customer_phone',
  'recipient_phone',
] as const;

const dayStart = (value: string | null) => (value ? `${value}T00:00:00.000Z` : undefined);
const dayEnd = (value: string | null) => (value ? `${value}T23:59:59.999Z` : undefined);
const amountOf = (value: string | null) => (value && /^\d+$/.test(value) ? Number(value) : undefined);

function commonFilter(query: URLSearchParams) {
  return {
    status: query.get('status') || undefined,
    paymentMethod: (query.get('payment_method') || undefined) as PaymentMethod | undefined,
    search: query.get('search') || undefined,
    startDate: dayStart(query.get('start_date')),
    endDate: dayEnd(query.get('end_date')),
    minAmount: amountOf(query.get('min_amount')),
    maxAmount: amountOf(query.get('max_amount')),
  };
}

/** The export of exactly what the list shows: the same filters as the v2 list's query parameters. */
function exportHref(path: string, query: URLSearchParams): string {
  const params = new URLSearchParams();
  for (const name of FILTER_FIELDS) {
    const value = query.get(name);
    if (!value) continue;
    if (name === 'start_date') params.set(name, dayStart(value)!);
    else if (name === 'end_date') params.set(name, dayEnd(value)!);
    else params.set(name, value);
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function FilterForm({ base, statuses, phoneField }: { base: string; statuses: readonly string[]; phoneField: 'customer_phone' | 'recipient_phone' }) {
  const { t, lang } = useApp();
  const { query } = useLocation();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams();
    for (const [name, value] of form) if (typeof value === 'string' && value.trim()) params.set(name, value.trim());
    const text = params.toString();
    navigate(text ? `${base}?${text}` : base);
  };
  const value = (name: string) => query.get(name) ?? '';
  return (
    <details class="card filters" open={FILTER_FIELDS.some((name) => query.get(name))}>
      <summary>{t.filters}</summary>
      <form onSubmit={submit} method="get" action="#" key={query.toString()}>
        <div class="grid">
          <Select
            label={t.status}
            name="status"
            initial={value('status')}
            options={[['', t.anyStatus], ...statuses.map((status): [string, string] => [status, STATUS_NAMES[lang][status] ?? status])]}
          />
          <Select
            label={t.method}
            name="payment_method"
            initial={value('payment_method')}
            options={[['', t.anyMethod], ...METHODS.map((method): [string, string] => [method, METHOD_NAMES[method]!])]}
          />
          <Field label={t.search} name="search" type="search" maxLength={100} defaultValue={value('search')} />
          <Field
            label={phoneField === 'customer_phone' ? t.customerPhone : t.recipientPhone}
            name={phoneField}
            type="tel"
            maxLength={20}
            defaultValue={value(phoneField)}
          />
          <Field label={t.from} name="start_date" type="date" defaultValue={value('start_date')} />
          <Field label={t.to} name="end_date" type="date" defaultValue={value('end_date')} />
          <Field label={t.minAmount} name="min_amount" inputMode="numeric" pattern="[0-9]*" defaultValue={value('min_amount')} />
          <Field label={t.maxAmount} name="max_amount" inputMode="numeric" pattern="[0-9]*" defaultValue={value('max_amount')} />
        </div>
        <div class="actions">
          <button type="submit">{t.apply}</button>
          <button type="button" class="secondary" onClick={() => navigate(base)}>
            {t.reset}
          </button>
        </div>
      </form>
    </details>
  );
}

/** Forward paging by cursor; "previous" goes back through the cursors seen. */
function usePager(key: string) {
  const [cursors, setCursors] = useState<{ key: string; stack: Array<string | undefined> }>({ key, stack: [undefined] });
  const stack = cursors.key === key ? cursors.stack : [undefined];
  return {
    after: stack[stack.length - 1],
    hasPrevious: stack.length > 1,
    next: (cursor: string | null | undefined) => cursor && setCursors({ key, stack: [...stack, cursor] }),
    previous: () => setCursors({ key, stack: stack.slice(0, -1) }),
  };
}

function Pager({ pager, hasNext, endCursor }: { pager: ReturnType<typeof usePager>; hasNext: boolean; endCursor: string | null | undefined }) {
  const { t } = useApp();
  if (!hasNext && !pager.hasPrevious) return null;
  return (
    <nav class="pager" aria-label={t.next}>
      <button type="button" class="secondary" disabled={!pager.hasPrevious} onClick={pager.previous}>
        {t.previous}
      </button>
      <button type="button" class="secondary" disabled={!hasNext} onClick={() => pager.next(endCursor)}>
        {t.next}
      </button>
    </nav>
  );
}

// ---------------------------------------------------------------------------------------------
// Transactions

/** A row of the transactions or payouts list: what both lists show, the last column aside. */
interface OrderRow {
  orderId: string;
  createdAt: string;
  amount: number;
  status: string;
}

/** The transactions and payouts lists: order (linked to its page), created, amount, status, and one column of their own. */
function OrderTable<Row extends OrderRow>({
  caption,
  base,
  rows,
  columns,
}: {
  caption: string;
  base: string;
  rows: Row[];
  /** The list's own columns after the common ones: a header and the cell's text. */
  columns: Array<[string, (row: Row) => string]>;
}) {
  const { t } = useApp();
  return (
    <Table caption={caption} stacked>
      <thead>
        <tr>
          <th scope="col">{t.orderId}</th>
          <th scope="col">{t.created}</th>
          <th scope="col" class="num">
            {t.amount}
          </th>
          <th scope="col">{t.status}</th>
          {columns.map(([header]) => (
            <th scope="col" key={header}>
              {header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((node) => (
          <tr key={node.orderId} data-order-id={node.orderId}>
            <td data-label={t.orderId}>
              <Link to={`${base}/${encodeURIComponent(node.orderId)}`}>
                <ShortId id={node.orderId} />
              </Link>
            </td>
            <td data-label={t.created}>
              <When at={node.createdAt} />
            </td>
            <td class="num" data-label={t.amount}>
              <Money amount={node.amount} />
            </td>
            <td data-label={t.status}>
              <StatusBadge status={node.status} />
            </td>
            {columns.map(([header, cell]) => (
              <td key={header} data-label={header}>
                {cell(node)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export function TransactionsPage() {
  const { t } = useApp();
  const { query } = useLocation();
  const key = query.toString();
  const pager = usePager(key);
  const filter: TransactionFilter = {
    ...commonFilter(query),
    status: commonFilter(query).status as TransactionFilter['status'],
    customerPhone: query.get('customer_phone') || undefined,
  };
  const list = useLoad(() => gql(DashboardTransactionsDocument, { filter, first: PAGE_SIZE, after: pager.after }), [key, pager.after]);
  return (
    <>
      <PageTitle>{t.transactions}</PageTitle>
      <FilterForm base="/transactions" statuses={TRANSACTION_STATUSES} phoneField="customer_phone" />
      <p class="toolbar">
        <a class="button secondary" href={exportHref('/exports/transactions.csv', query)} download data-export>
          {t.exportCsv}
        </a>
      </p>
      <Loaded state={list}>
        {(data) => (
          <>
            <p>{t.count(data.transactionsConnection.totalCount)}</p>
            <OrderTable
              caption={t.transactions}
              base="/transactions"
              rows={data.transactionsConnection.edges.map(({ node }) => node)}
              columns={[
                [t.customer, (node) => personOf(node.customer) || '—'],
                [t.method, (node) => (node.selectedPaymentMethod ? (METHOD_NAMES[node.selectedPaymentMethod] ?? '—') : '—')],
              ]}
            />
            <Pager pager={pager} hasNext={data.transactionsConnection.pageInfo.hasNextPage} endCursor={data.transactionsConnection.pageInfo.endCursor} />
          </>
        )}
      </Loaded>
    </>
  );
}

export function TransactionPage({ orderId }: { orderId: string }) {
  const { t, lang } = useApp();
  const may = useMay();
  const state = useLoad(() => gql(DashboardTransactionDocument, { orderId }), [orderId]);
  const refund = useAction();
  const [refunded, setRefunded] = useState(false);
  const doRefund = () =>
    refund.run(async () => {
      await gql(DashboardRefundDocument, { orderId, idempotencyKey: idempotencyKey() });
      setRefunded(true);
      state.reload();
    });
  return (
    <>
      <p class="crumbs">
        <Link to="/transactions">← {t.transactions}</Link>
      </p>
      <PageTitle>
        {t.orderId} <code>{orderId}</code>
      </PageTitle>
      <Loaded state={state}>
        {({ transaction: tx }) => (
          <>
            <section class="card">
              <dl class="pairs">
                <dt>{t.status}</dt>
                <dd>
                  <StatusBadge status={tx.status} />
                </dd>
                <dt>{t.amount}</dt>
                <dd>
                  <Money amount={tx.amount} />
                </dd>
                <dt>{t.fees}</dt>
                <dd>
                  <Money amount={tx.fees} />
                </dd>
                <dt>{t.method}</dt>
                <dd>
                  {tx.selectedPaymentMethod ? METHOD_NAMES[tx.selectedPaymentMethod] : tx.methodOfPayment.map((method) => METHOD_NAMES[method]).join(', ')}
                </dd>
                <dt>{t.customer}</dt>
                <dd>{[tx.customer.firstName, tx.customer.lastName, tx.customer.phone].filter(Boolean).join(' · ') || '—'}</dd>
              </dl>
              {refunded && <Notice>{t.refundDone}</Notice>}
              <Alert error={refund.error} />
              {may('refundTransaction') && (tx.status === 'paid' || tx.status === 'paid_and_blocked') && (
                <ConfirmButton
                  label={t.refundThis}
                  question={t.refundConfirm(formatMoney(lang, tx.amount))}
                  onConfirm={doRefund}
                  danger
                  disabled={refund.busy}
                />
              )}
            </section>
            <section class="card">
              <h2>{t.products}</h2>
              <Table caption={t.products}>
                <thead>
                  <tr>
                    <th scope="col">{t.products}</th>
                    <th scope="col" class="num">
                      {t.quantity}
                    </th>
                    <th scope="col" class="num">
                      {t.price}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {tx.products.map((product, index) => (
                    <tr key={index}>
                      <td>
                        {product.name}
                        {product.description && <small class="hint"> — {product.description}</small>}
                      </td>
                      <td class="num">{product.quantity}</td>
                      <td class="num">
                        <Money amount={product.price} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </section>
            <section class="card">
              <h2>{t.timeline}</h2>
              <ol class="timeline">
                {timelineOf(tx, t, lang).map((event, index) => (
                  <li key={index}>
                    <When at={event.at} /> — {event.label}
                  </li>
                ))}
              </ol>
            </section>
            <section class="card">
              <h2>{t.paymentAttempts}</h2>
              {tx.paymentAttempts.length === 0 ? (
                <p>{t.none}</p>
              ) : (
                <Table caption={t.paymentAttempts}>
                  <thead>
                    <tr>
                      <th scope="col">{t.created}</th>
                      <th scope="col">{t.method}</th>
                      <th scope="col">{t.phone}</th>
                      <th scope="col" class="num">
                        {t.amount}
                      </th>
                      <th scope="col">{t.state}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {tx.paymentAttempts.map((attempt) => (
                      <tr key={attempt.id}>
                        <td>
                          <When at={attempt.createdAt} />
                        </td>
                        <td>{METHOD_NAMES[attempt.method]}</td>
                        <td>{attempt.phone}</td>
                        <td class="num">
                          <Money amount={attempt.amount} />
                        </td>
                        <td>
                          <StatusBadge status={attempt.state} />
                          {attempt.reason && <small class="hint"> {attempt.reason}</small>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              )}
            </section>
            <section class="card">
              <h2>{t.deliveries}</h2>
              {tx.webhookDeliveries.length === 0 ? (
                <p>{t.none}</p>
              ) : (
                <ul class="plain">
                  {tx.webhookDeliveries.map((delivery) => (
                    <li key={delivery.id} data-delivery-id={delivery.id}>
                      <When at={delivery.createdAt} /> <code>{delivery.event}</code> <StatusBadge status={delivery.status} /> ({t.attempts}:{' '}
                      {delivery.attemptCount}) <Link to={`/deliveries?order_id=${encodeURIComponent(orderId)}`}>{t.details}</Link>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}

type TransactionDetail = DashboardTransactionQuery['transaction'];

/** An id a person recognises in a list (its first characters); the whole id is on its page. */
function ShortId({ id }: { id: string }) {
  return (
    <code title={id} data-id={id}>
      {id.length > 13 ? `${id.slice(0, 8)}…` : id}
    </code>
  );
}

function timelineOf(tx: TransactionDetail, t: ReturnType<typeof useApp>['t'], lang: Lang): Array<{ at: string; label: string }> {
  const status = (value: string) => STATUS_NAMES[lang][value] ?? value;
  const events: Array<{ at: string; label: string }> = [{ at: tx.createdAt, label: t.timelineCreated }];
  for (const attempt of tx.paymentAttempts)
    events.push({ at: attempt.settledAt ?? attempt.createdAt, label: `${t.paymentAttempts}: ${METHOD_NAMES[attempt.method]} — ${status(attempt.state)}` });
  if (tx.paidAt) events.push({ at: tx.paidAt, label: t.timelinePaid });
  if (tx.refund) events.push({ at: tx.refund.updatedAt, label: `${t.timelineRefund}: ${status(tx.refund.status)}` });
  for (const delivery of tx.webhookDeliveries) events.push({ at: delivery.createdAt, label: `${t.webhook}: ${delivery.event} — ${status(delivery.status)}` });
  return events.sort((a, b) => a.at.localeCompare(b.at));
}

// ---------------------------------------------------------------------------------------------
// Payouts

export function PayoutsPage() {
  const { t } = useApp();
  const may = useMay();
  const { query } = useLocation();
  const key = query.toString();
  const pager = usePager(key);
  const common = commonFilter(query);
  const filter: PayoutFilter = { ...common, status: common.status as PayoutFilter['status'], recipientPhone: query.get('recipient_phone') || undefined };
  const list = useLoad(() => gql(DashboardPayoutsDocument, { filter, first: PAGE_SIZE, after: pager.after }), [key, pager.after]);
  return (
    <>
      <PageTitle>{t.payouts}</PageTitle>
      {may('createPayout') && (
        <CapabilityGate needs={['payouts']}>
          <p class="toolbar">
            <Link to="/payouts/new" class="button">
              {t.newPayout}
            </Link>
            {may('createPayoutBatch') && (
              <Link to="/payouts/batch" class="button secondary">
                {t.newPayoutBatch}
              </Link>
            )}
          </p>
        </CapabilityGate>
      )}
      <p class="toolbar">
        <a class="button secondary" href={exportHref('/exports/payouts.csv', query)} download data-export>
          {t.exportCsv}
        </a>
      </p>
      <FilterForm base="/payouts" statuses={PAYOUT_STATUSES} phoneField="recipient_phone" />
      <Loaded state={list}>
        {(data) => (
          <>
            <p>{t.count(data.payoutsConnection.totalCount)}</p>
            <OrderTable
              caption={t.payouts}
              base="/payouts"
              rows={data.payoutsConnection.edges.map(({ node }) => node)}
              columns={[
                [t.recipientPhone, (node) => personOf(node.recipient) || '—'],
                [t.method, (node) => METHOD_NAMES[node.selectedPaymentMethod] ?? '—'],
              ]}
            />
            <Pager pager={pager} hasNext={data.payoutsConnection.pageInfo.hasNextPage} endCursor={data.payoutsConnection.pageInfo.endCursor} />
          </>
        )}
      </Loaded>
    </>
  );
}

export function PayoutPage({ orderId }: { orderId: string }) {
  const { t } = useApp();
  const { query } = useLocation();
  const state = useLoad(() => gql(DashboardPayoutDocument, { orderId }), [orderId]);
  return (
    <>
      <p class="crumbs">
        <Link to="/payouts">← {t.payouts}</Link>
      </p>
      <PageTitle>
        {t.payouts} <code>{orderId}</code>
      </PageTitle>
      {query.get('created') && <Notice>{t.payoutCreated}</Notice>}
      <Loaded state={state}>
        {({ payout }) => (
          <>
            <section class="card">
              <dl class="pairs">
                <dt>{t.status}</dt>
                <dd>
                  <StatusBadge status={payout.status} />
                  {payout.awaitingReview && <small class="hint"> {t.awaitingReview}</small>}
                </dd>
                <dt>{t.amount}</dt>
                <dd>
                  <Money amount={payout.amount} />
                </dd>
                <dt>{t.fees}</dt>
                <dd>
                  <Money amount={payout.fees} />
                </dd>
                <dt>{t.method}</dt>
                <dd>{METHOD_NAMES[payout.selectedPaymentMethod]}</dd>
                <dt>{t.recipientPhone}</dt>
                <dd>{[payout.recipient.firstName, payout.recipient.lastName, payout.recipient.phone].filter(Boolean).join(' · ')}</dd>
                <dt>{t.reason}</dt>
                <dd>{payout.reason || '—'}</dd>
                <dt>{t.created}</dt>
                <dd>
                  <When at={payout.createdAt} />
                </dd>
                <dt>{t.paidAt}</dt>
                <dd>
                  <When at={payout.paidAt} />
                </dd>
                {payout.failureReason && (
                  <>
                    <dt>{t.failureReason}</dt>
                    <dd>{payout.failureReason}</dd>
                  </>
                )}
              </dl>
            </section>
            <section class="card">
              <h2>{t.ledgerEntries}</h2>
              <EntriesTable entries={payout.ledgerEntries} />
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}

export function NewPayoutPage() {
  const { t, lang } = useApp();
  const create = useAction();
  const [form, setForm] = useState({ amount: '', phone: '', method: 'wave' as PaymentMethod, firstName: '', lastName: '', reason: '' });
  const [reviewing, setReviewing] = useState(false);
  const set = (name: keyof typeof form) => (event: Event) => setForm({ ...form, [name]: (event.currentTarget as HTMLInputElement).value });
  const amount = Number(form.amount);
  const review = (event: Event) => {
    event.preventDefault();
    setReviewing(true);
  };
  const send = () =>
    create.run(async () => {
      const { createPayout } = await gql(DashboardCreatePayoutDocument, {
        idempotencyKey: idempotencyKey(),
        input: {
          amount,
          selectedPaymentMethod: form.method,
          reason: form.reason || undefined,
          recipient: { phone: form.phone, firstName: form.firstName || undefined, lastName: form.lastName || undefined },
        },
      });
      navigate(`/payouts/${encodeURIComponent(createPayout.orderId)}?created=1`);
    });
  return (
    <>
      <p class="crumbs">
        <Link to="/payouts">← {t.payouts}</Link>
      </p>
      <PageTitle>{t.newPayout}</PageTitle>
      <section class="card narrow">
        <CapabilityGate needs={['payouts']} methods={[...METHODS]}>
          <Alert error={create.error} />
          {reviewing ? (
            // biome-ignore lint/a11y/useSemanticElements: the same prompt as ConfirmButton's: a <fieldset> would bring its own rendering (min-inline-size: min-content, border, padding) to a two-button prompt that is not a group of form fields; role=group with its label is the same group to assistive technology
            <div class="confirm" role="group" aria-label={t.reviewPayout}>
              <p data-payout-review>{t.payoutConfirm(formatMoney(lang, amount), form.phone, METHOD_NAMES[form.method]!)}</p>
              <button type="button" class="danger" disabled={create.busy} onClick={send}>
                {t.confirm}
              </button>
              <button type="button" class="secondary" onClick={() => setReviewing(false)}>
                {t.cancel}
              </button>
            </div>
          ) : (
            <form onSubmit={review} method="post" action="#">
              <Field label={t.amount} name="amount" inputMode="numeric" pattern="[0-9]+" required value={form.amount} onInput={set('amount')} hint="XOF" />
              <Select
                label={t.method}
                name="method"
                value={form.method}
                onChange={set('method')}
                options={METHODS.map((method): [string, string] => [method, METHOD_NAMES[method]!])}
              />
              <Field
                label={t.recipientPhone}
                name="phone"
                type="tel"
                autoComplete="off"
                required
                maxLength={20}
                value={form.phone}
                onInput={set('phone')}
                hint="+221 77 123 45 67"
              />
              <Field label={t.recipientFirstName} name="firstName" maxLength={100} value={form.firstName} onInput={set('firstName')} />
              <Field label={t.recipientLastName} name="lastName" maxLength={100} value={form.lastName} onInput={set('lastName')} />
              <Field label={t.reason} name="reason" maxLength={255} value={form.reason} onInput={set('reason')} />
              <button type="submit">{t.reviewPayout}</button>
            </form>
          )}
        </CapabilityGate>
      </section>
    </>
  );
}

// ---------------------------------------------------------------------------------------------
// Balances

export function BalancesPage() {
  const { t } = useApp();
  const [page, setPage] = useState(1);
  const state = useLoad(() => gql(DashboardAccountsDocument, { entriesPage: page }), [page]);
  return (
    <>
      <PageTitle>{t.balances}</PageTitle>
      <Loaded state={state}>
        {(data) => (
          <>
            <BalanceCards accounts={data.accounts} />
            {data.accounts.map((account) => (
              <section class="card" key={account.id} data-account-entries={account.name}>
                <h2>
                  {t.ledgerEntries} — {account.name === 'escrow' ? t.escrowAccount : t.mainAccount}
                </h2>
                <EntriesTable entries={account.entries.entries} />
                {account.entries.pagination.totalPages > 1 && (
                  <nav class="pager" aria-label={t.ledgerEntries}>
                    <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                      {t.previous}
                    </button>
                    <button type="button" class="secondary" disabled={page >= account.entries.pagination.totalPages} onClick={() => setPage(page + 1)}>
                      {t.next}
                    </button>
                  </nav>
                )}
              </section>
            ))}
          </>
        )}
      </Loaded>
    </>
  );
}

function EntriesTable({
  entries,
}: {
  entries: Array<{ id: string; createdAt: string; amount: number; kind: string; description: string; balanceAfter?: number | null }>;
}) {
  const { t } = useApp();
  const words = useWords();
  if (entries.length === 0) return <p>{t.none}</p>;
  return (
    <Table caption={t.ledgerEntries}>
      <thead>
        <tr>
          <th scope="col">{t.created}</th>
          <th scope="col">{t.kind}</th>
          <th scope="col">{t.description}</th>
          <th scope="col" class="num">
            {t.amount}
          </th>
          <th scope="col" class="num">
            {t.balanceAfter}
          </th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>
              <When at={entry.createdAt} />
            </td>
            <td>{words.ledgerKinds[entry.kind] ?? entry.kind}</td>
            <td>{entry.description}</td>
            <td class="num">
              <Money amount={entry.amount} />
            </td>
            <td class="num">{entry.balanceAfter == null ? '—' : <Money amount={entry.balanceAfter} />}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
