/**
 * Payment links (issue 30): the list, the form that makes one (products or a fixed amount,
 * methods, single use, expiry, redirect addresses), and a link's page: how to share it (its
 * address, its QR code, a ready-to-send message), its payments with their count and amount, and
 * deactivation. A client of /graphql like every page; the server decides who may do what.
 */
import { useState } from 'preact/hooks';
import { qrDrawing } from '../../../edge/qrCode.js';
import { gql, type Document } from '../api.js';
import { formatMoney, METHOD_NAMES } from '../i18n.js';
import { Link, navigate, useLocation } from '../router.js';
import {
  Alert,
  ConfirmButton,
  CopyButton,
  Field,
  Loaded,
  Money,
  Notice,
  PageTitle,
  StatusBadge,
  Table,
  When,
  useAction,
  useApp,
  useLoad,
  useMay,
} from '../ui.js';
import { LINK_MESSAGES, type LinkMessages, type LinkStatus } from './linksMessages.js';

const METHODS = ['wave', 'orange_money'] as const;
type Method = (typeof METHODS)[number];

interface PaymentLink {
  id: string;
  name: string;
  url: string;
  qrCodeUrl: string;
  status: LinkStatus;
  amount: number;
  singleUse: boolean;
  expiresAt: string | null;
  paidCount: number;
  paidAmount: number;
  createdAt: string;
  methodOfPayment: Method[];
}

interface LinkPayment {
  orderId: string;
  status: string;
  amount: number;
  createdAt: string;
  customer: { firstName: string | null; lastName: string | null; phone: string | null };
}

const LINK_FIELDS = 'id name url qrCodeUrl status amount singleUse expiresAt paidCount paidAmount createdAt methodOfPayment';

/** The operations' text, typed by hand (this page's documents; the schema test runs them in the browser test). */
const doc = <R, V>(text: string): Document<R, V> => ({ toString: () => text });
const LinksDocument = doc<{ paymentLinks: { edges: { node: PaymentLink }[] } }, Record<string, never>>(
  `query DashboardPaymentLinks { paymentLinks(first: 100) { edges { node { ${LINK_FIELDS} } } } }`,
);
const LinkDocument = doc<{ paymentLink: PaymentLink & { transactions: { transactions: LinkPayment[]; pagination: { totalCount: number } } } }, { id: string }>(
  `query DashboardPaymentLink($id: ID!) { paymentLink(id: $id) { ${LINK_FIELDS} transactions(limit: 100) { transactions { orderId status amount createdAt customer { firstName lastName phone } } pagination { totalCount } } } }`,
);
interface CreateInput {
  name: string;
  amount?: number;
  products?: { name: string; price: number; quantity: number }[];
  methodOfPayment: Method[];
  singleUse: boolean;
  expiresAt?: string;
  successUrl?: string;
  errorUrl?: string;
  feesCustomerSide: boolean;
}
const CreateDocument = doc<{ createPaymentLink: { id: string } }, { input: CreateInput }>(
  'mutation DashboardCreatePaymentLink($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { id } }',
);
const DeactivateDocument = doc<{ deactivatePaymentLink: { status: LinkStatus } }, { id: string }>(
  'mutation DashboardDeactivatePaymentLink($id: ID!) { deactivatePaymentLink(id: $id) { status } }',
);

const useLinkWords = (): LinkMessages => LINK_MESSAGES[useApp().lang];

export function LinkStatusBadge({ status }: { status: LinkStatus }) {
  const words = useLinkWords();
  return (
    <span class="badge" data-status={status === 'active' ? 'paid' : 'cancelled'} data-link-status={status}>
      {words.statuses[status]}
    </span>
  );
}

export function PaymentLinksPage() {
  const words = useLinkWords();
  const may = useMay();
  const list = useLoad(() => gql(LinksDocument), []);
  return (
    <>
      <PageTitle>{words.title}</PageTitle>
      <p>{words.intro}</p>
      <p class="toolbar">
        {may('createPaymentLink') ? (
          <Link to="/links/new" class="button">
            {words.newLink}
          </Link>
        ) : (
          <small class="hint">{words.cannotCreate}</small>
        )}
      </p>
      <Loaded state={list}>
        {(data) =>
          data.paymentLinks.edges.length === 0 ? (
            <p>{words.none}</p>
          ) : (
            <Table caption={words.title} stacked>
              <thead>
                <tr>
                  <th scope="col">{words.name}</th>
                  <th scope="col">{words.amount}</th>
                  <th scope="col">{words.status}</th>
                  <th scope="col">{words.paidCount}</th>
                  <th scope="col">{words.paidAmount}</th>
                  <th scope="col">{words.created}</th>
                </tr>
              </thead>
              <tbody>
                {data.paymentLinks.edges.map(({ node }) => (
                  <tr key={node.id}>
                    <td data-label={words.name}>
                      <Link to={`/links/${node.id}`}>{node.name}</Link>
                    </td>
                    <td data-label={words.amount}>
                      <Money amount={node.amount} />
                    </td>
                    <td data-label={words.status}>
                      <LinkStatusBadge status={node.status} />
                    </td>
                    <td data-label={words.paidCount}>{node.paidCount}</td>
                    <td data-label={words.paidAmount}>
                      <Money amount={node.paidAmount} />
                    </td>
                    <td data-label={words.created}>
                      <When at={node.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </Loaded>
    </>
  );
}

interface ProductRow {
  name: string;
  price: string;
  quantity: string;
}

export function NewPaymentLinkPage() {
  const { t } = useApp();
  const words = useLinkWords();
  const action = useAction();
  const [mode, setMode] = useState<'amount' | 'products'>('amount');
  const [products, setProducts] = useState<ProductRow[]>([{ name: '', price: '', quantity: '1' }]);
  const setProduct = (index: number, change: Partial<ProductRow>) => setProducts(products.map((row, at) => (at === index ? { ...row, ...change } : row)));

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const expires = text('expires_at');
    const input: CreateInput = {
      name: text('name'),
      ...(mode === 'amount'
        ? { amount: Number(text('amount')) }
        : { products: products.map((row) => ({ name: row.name.trim(), price: Number(row.price), quantity: Number(row.quantity) })) }),
      methodOfPayment: METHODS.filter((method) => form.get(`method_${method}`) === 'on'),
      singleUse: form.get('single_use') === 'on',
      ...(expires && { expiresAt: new Date(expires).toISOString() }),
      ...(text('success_url') && { successUrl: text('success_url') }),
      ...(text('error_url') && { errorUrl: text('error_url') }),
      feesCustomerSide: form.get('fees_customer_side') === 'on',
    };
    return action.run(async () => {
      const { createPaymentLink } = await gql(CreateDocument, { input });
      navigate(`/links/${createPaymentLink.id}?created=1`);
    });
  };

  return (
    <>
      <p class="crumbs">
        <Link to="/links">← {words.title}</Link>
      </p>
      <PageTitle>{words.newLink}</PageTitle>
      <form class="card narrow" onSubmit={submit} data-link-form>
        <Field label={words.name} hint={words.nameHint} name="name" required maxLength={200} autoComplete="off" />
        <fieldset class="choices">
          <legend>{words.what}</legend>
          <label class="check">
            <input type="radio" name="mode" value="amount" checked={mode === 'amount'} onChange={() => setMode('amount')} /> {words.fixedAmount}
          </label>
          <label class="check">
            <input type="radio" name="mode" value="products" checked={mode === 'products'} onChange={() => setMode('products')} /> {words.products}
          </label>
        </fieldset>
        {mode === 'amount' ? (
          <Field label={`${words.amount} (XOF)`} name="amount" type="number" inputMode="numeric" min={1} step={1} required />
        ) : (
          <div class="products">
            {products.map((row, index) => (
              <fieldset class="product" key={index}>
                <legend>
                  {words.productName} {index + 1}
                </legend>
                <Field
                  label={words.productName}
                  value={row.name}
                  onInput={(event) => setProduct(index, { name: event.currentTarget.value })}
                  required
                  maxLength={200}
                />
                <Field
                  label={words.price}
                  type="number"
                  inputMode="numeric"
                  min={0}
                  step={1}
                  value={row.price}
                  onInput={(event) => setProduct(index, { price: event.currentTarget.value })}
                  required
                />
                <Field
                  label={words.quantity}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  step={1}
                  value={row.quantity}
                  onInput={(event) => setProduct(index, { quantity: event.currentTarget.value })}
                  required
                />
                {products.length > 1 && (
                  <button type="button" class="secondary" onClick={() => setProducts(products.filter((_, at) => at !== index))}>
                    {words.removeProduct}
                  </button>
                )}
              </fieldset>
            ))}
            <button type="button" class="secondary" onClick={() => setProducts([...products, { name: '', price: '', quantity: '1' }])}>
              {words.addProduct}
            </button>
          </div>
        )}
        <fieldset class="choices">
          <legend>{words.methods}</legend>
          {METHODS.map((method) => (
            <label class="check" key={method}>
              <input type="checkbox" name={`method_${method}`} defaultChecked /> {METHOD_NAMES[method]}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label class="check">
            <input type="checkbox" name="single_use" /> {words.singleUse}
          </label>
          <small class="hint">{words.singleUseHint}</small>
        </div>
        <Field label={words.expiresAt} hint={words.expiresHint} name="expires_at" type="datetime-local" />
        <details>
          <summary>{words.moreOptions}</summary>
          <Field label={words.successUrl} name="success_url" type="url" placeholder="https://" />
          <Field label={words.errorUrl} name="error_url" type="url" placeholder="https://" />
          <div class="field">
            <label class="check">
              <input type="checkbox" name="fees_customer_side" /> {words.feesCustomerSide}
            </label>
          </div>
        </details>
        <Alert error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? t.loading : words.create}
        </button>
      </form>
    </>
  );
}

/** The link's address as a QR code: one SVG path of dark runs (drawn here: no image request, no outside service). */
function LinkQrCode({ text, label }: { text: string; label: string }) {
  const { path, size } = qrDrawing(text, 4);
  return (
    <svg class="qr link-qr" viewBox={`0 0 ${size} ${size}`} width={size * 4} height={size * 4} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} class="qr-light" />
      <path d={path} class="qr-dark" />
    </svg>
  );
}

export function PaymentLinkPage({ id }: { id: string }) {
  const { lang, session } = useApp();
  const words = useLinkWords();
  const may = useMay();
  const { query } = useLocation();
  const state = useLoad(() => gql(LinkDocument, { id }), [id]);
  const deactivation = useAction();
  const deactivate = () =>
    deactivation.run(async () => {
      await gql(DeactivateDocument, { id });
      state.reload();
    });
  return (
    <>
      <p class="crumbs">
        <Link to="/links">← {words.title}</Link>
      </p>
      <Loaded state={state}>
        {({ paymentLink: link }) => {
          const message = words.messageText(link.name, formatMoney(lang, link.amount), session?.user.organizationName ?? '', link.url);
          return (
            <>
              <PageTitle>{link.name}</PageTitle>
              {query.get('created') && <Notice>{words.created_}</Notice>}
              <section class="card">
                <dl class="pairs link-facts">
                  <dt>{words.status}</dt>
                  <dd>
                    <LinkStatusBadge status={link.status} />
                  </dd>
                  <dt>{words.amount}</dt>
                  <dd>
                    <Money amount={link.amount} />
                  </dd>
                  <dt>{words.paidCount}</dt>
                  <dd data-paid-count>{link.paidCount}</dd>
                  <dt>{words.paidAmount}</dt>
                  <dd data-paid-amount>
                    <Money amount={link.paidAmount} />
                  </dd>
                  <dt>{words.use}</dt>
                  <dd>{link.singleUse ? words.once : words.reusable}</dd>
                  <dt>{words.methods}</dt>
                  <dd>{link.methodOfPayment.map((method) => METHOD_NAMES[method]).join(', ')}</dd>
                  <dt>{words.expires}</dt>
                  <dd>{link.expiresAt ? <When at={link.expiresAt} /> : words.never}</dd>
                  <dt>{words.created}</dt>
                  <dd>
                    <When at={link.createdAt} />
                  </dd>
                </dl>
                {deactivation.error ? <Alert error={deactivation.error} /> : null}
                {link.status === 'deactivated' && <Notice>{words.deactivated}</Notice>}
                {may('deactivatePaymentLink') && link.status !== 'deactivated' && (
                  <ConfirmButton label={words.deactivate} question={words.deactivateQuestion} onConfirm={deactivate} danger disabled={deactivation.busy} />
                )}
              </section>
              {link.status === 'active' && (
                <section class="card share" aria-labelledby="share-title">
                  <h2 id="share-title">{words.share}</h2>
                  <p class="hint">{words.shareHint}</p>
                  <p>{words.url}</p>
                  <div class="secret-row">
                    <code data-link-url>{link.url}</code>
                    <CopyButton value={link.url} />
                  </div>
                  <p>{words.message}</p>
                  <div class="secret-row">
                    <p class="message" data-link-message>
                      {message}
                    </p>
                    <CopyButton value={message} />
                  </div>
                  <LinkQrCode text={link.url} label={words.qr} />
                  <p>
                    <a href={link.qrCodeUrl} download={`qr-${link.id}.svg`} data-qr-download>
                      {words.downloadQr}
                    </a>
                  </p>
                </section>
              )}
              <section class="card" aria-labelledby="payments-title">
                <h2 id="payments-title">{words.payments}</h2>
                {link.transactions.transactions.length === 0 ? (
                  <p>{words.noPayments}</p>
                ) : (
                  <Table caption={words.payments} stacked>
                    <thead>
                      <tr>
                        <th scope="col">{words.customer}</th>
                        <th scope="col">{words.phone}</th>
                        <th scope="col">{words.amount}</th>
                        <th scope="col">{words.status}</th>
                        <th scope="col">{words.created}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {link.transactions.transactions.map((payment) => (
                        <tr key={payment.orderId}>
                          <td data-label={words.customer}>
                            <Link to={`/transactions/${payment.orderId}`}>
                              {[payment.customer.firstName, payment.customer.lastName].filter(Boolean).join(' ') || payment.orderId}
                            </Link>
                          </td>
                          <td data-label={words.phone}>{payment.customer.phone ?? '—'}</td>
                          <td data-label={words.amount}>
                            <Money amount={payment.amount} />
                          </td>
                          <td data-label={words.status}>
                            <StatusBadge status={payment.status} />
                          </td>
                          <td data-label={words.created}>
                            <When at={payment.createdAt} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                )}
              </section>
            </>
          );
        }}
      </Loaded>
    </>
  );
}
