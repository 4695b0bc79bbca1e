/**
 * Integration: API keys (create with a scope, the secret shown once, list, revoke), webhooks (add,
 * the secret shown once, rotate, delete, send a test event) and the delivery log (every attempt
 * with its time, status code and duration, the signed body sent; filter; resend one, or every
 * failed one since a time). What a role may not do is not shown; the server refuses it anyway.
 */
import { useState } from 'preact/hooks';
import { ApiError, gql } from '../api.js';
import {
  DashboardApiKeysDocument,
  DashboardCreateApiKeyDocument,
  DashboardCreateWebhookDocument,
  DashboardDeleteWebhookDocument,
  DashboardDeliveriesDocument,
  DashboardRedeliverDocument,
  DashboardRedeliverFailedDocument,
  DashboardRevokeApiKeyDocument,
  DashboardRotateWebhookSecretDocument,
  DashboardSendTestWebhookDocument,
  DashboardWebhooksDocument,
  type ApiScope,
  type DashboardDeliveriesQuery,
  type WebhookDeliveryStatus,
  type WebhookEvent,
  type WebhookVersion,
} from '../generated.js';
import { STATUS_NAMES } from '../i18n.js';
import { ChoicesExplained, useWords } from '../words.js';
import { Link, navigate, useLocation } from '../router.js';
import {
  Alert,
  ConfirmButton,
  CopyButton,
  Field,
  Loaded,
  Notice,
  PageTitle,
  SecretOnce,
  Select,
  StatusBadge,
  Table,
  When,
  useAction,
  useApp,
  useLoad,
  useMay,
} from '../ui.js';

const SCOPES: ApiScope[] = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'];
const DELIVERY_STATUSES: WebhookDeliveryStatus[] = ['pending', 'delivered', 'dropped'];
const WEBHOOK_EVENTS: WebhookEvent[] = ['payment_status', 'payout_status', 'refund_status', 'payout_batch_status'];
const DELIVERIES_PAGE = 25;

export function IntegrationPage() {
  const { t } = useApp();
  return (
    <>
      <PageTitle>{t.integration}</PageTitle>
      <ApiKeysSection />
      <WebhooksSection />
    </>
  );
}

function ApiKeysSection() {
  const { t } = useApp();
  const words = useWords();
  const may = useMay();
  const keys = useLoad(() => gql(DashboardApiKeysDocument), []);
  const action = useAction();
  const [scope, setScope] = useState<ApiScope>('checkout');
  const [issued, setIssued] = useState<string | null>(null);
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setIssued((await gql(DashboardCreateApiKeyDocument, { scope })).createApiKey.key);
      keys.reload();
    });
  };
  const revoke = (id: string) =>
    action.run(async () => {
      await gql(DashboardRevokeApiKeyDocument, { id });
      keys.reload();
    });
  return (
    <section class="card" aria-labelledby="api-keys">
      <h2 id="api-keys">{t.apiKeys}</h2>
      <Alert error={action.error} />
      {issued && <SecretOnce label={t.newKeyShownOnce} value={issued} />}
      {may('createApiKey') && (
        <form class="inline" onSubmit={create} method="post" action="#">
          <Select
            label={t.scope}
            name="scope"
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value as ApiScope)}
            options={SCOPES.map((value): [string, string] => [value, value])}
          />
          <p class="hint choice-help" aria-live="polite" data-scope-help={scope}>
            {words.scopeHelp[scope]}
          </p>
          <button type="submit" disabled={action.busy}>
            {t.createKey}
          </button>
        </form>
      )}
      {may('createApiKey') && <ChoicesExplained title={words.scopesExplained} names={SCOPES} help={words.scopeHelp} />}
      <Loaded state={keys}>
        {({ apiKeys }) =>
          apiKeys.length === 0 ? (
            <p>{t.none}</p>
          ) : (
            <Table caption={t.apiKeys}>
              <thead>
                <tr>
                  <th scope="col">{t.prefix}</th>
                  <th scope="col">{t.scope}</th>
                  <th scope="col">{t.created}</th>
                  <th scope="col">{t.lastUsed}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t.revoke}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {apiKeys.map((key) => (
                  <tr key={key.id} data-key-prefix={key.prefix}>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>{key.scope}</td>
                    <td>
                      <When at={key.createdAt} />
                    </td>
                    <td>{key.lastUsedAt ? <When at={key.lastUsedAt} /> : t.never}</td>
                    <td>
                      {key.revoked ? (
                        <span class="badge" data-status="cancelled">
                          {t.revoked}
                        </span>
                      ) : (
                        may('revokeApiKey') && (
                          <ConfirmButton
                            label={t.revoke}
                            question={t.revokeConfirm(key.prefix)}
                            onConfirm={() => revoke(key.id)}
                            danger
                            disabled={action.busy}
                          />
                        )
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}

function WebhooksSection() {
  const { t, session } = useApp();
  const may = useMay();
  const hooks = useLoad(() => gql(DashboardWebhooksDocument), []);
  const action = useAction();
  const [url, setUrl] = useState('');
  const [version, setVersion] = useState<WebhookVersion>('v2');
  const [events, setEvents] = useState<WebhookEvent[]>(['payment_status']);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const act = (work: () => Promise<unknown>, message: string | null = null) =>
    action.run(async () => {
      setSecret(null);
      setNotice(null);
      await work();
      setNotice(message);
      hooks.reload();
    });
  const add = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      setSecret((await gql(DashboardCreateWebhookDocument, { url: url.trim(), version, events })).createWebhook.secret);
      setUrl('');
    });
  };
  return (
    <section class="card" aria-labelledby="webhooks">
      <h2 id="webhooks">{t.webhooks}</h2>
      <p>
        <Link to="/deliveries">{t.deliveryLog} →</Link>
      </p>
      <Alert error={action.error} />
      {action.error instanceof ApiError && action.error.code === 'PRIVATE_WEBHOOK_URL' && session && (
        <LocalWebhooksHint organizationId={session.user.organizationId} url={url.trim()} />
      )}
      {secret && <SecretOnce label={t.newSecretShownOnce} value={secret} />}
      {notice && <Notice>{notice}</Notice>}
      {may('createWebhook') && (
        <form class="inline" onSubmit={add} method="post" action="#">
          <Field
            label={t.url}
            name="url"
            type="url"
            required
            maxLength={2048}
            placeholder="https://"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <Select
            label={t.version}
            name="version"
            value={version}
            onChange={(e) => setVersion(e.currentTarget.value as WebhookVersion)}
            options={[
              ['v2', 'v2'],
              ['v1', 'v1'],
            ]}
          />
          <fieldset class="events">
            <legend>{t.webhookEvents}</legend>
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event}>
                <input
                  type="checkbox"
                  name="events"
                  value={event}
                  checked={events.includes(event)}
                  onChange={(e) =>
                    setEvents(
                      e.currentTarget.checked ? WEBHOOK_EVENTS.filter((one) => one === event || events.includes(one)) : events.filter((one) => one !== event),
                    )
                  }
                />{' '}
                <code>{event}</code>
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={action.busy || events.length === 0}>
            {t.addWebhook}
          </button>
        </form>
      )}
      <Loaded state={hooks}>
        {({ webhooks }) =>
          webhooks.length === 0 ? (
            <p>{t.none}</p>
          ) : (
            <ul class="plain webhooks">
              {webhooks.map((hook) => (
                <li key={hook.id} data-webhook-id={hook.id}>
                  <p>
                    <code class="wrap">{hook.url}</code> <span class="badge">{hook.version}</span>{' '}
                    <span class="hint" data-events={hook.events.join(',')}>
                      {hook.events.join(', ')}
                    </span>{' '}
                    <small class="hint">
                      {t.created} <When at={hook.createdAt} />
                    </small>
                  </p>
                  <div class="actions">
                    <Link to={`/deliveries?webhook_id=${encodeURIComponent(hook.id)}`} class="button secondary">
                      {t.deliveryLog}
                    </Link>
                    {may('sendTestWebhook') && (
                      <button
                        type="button"
                        class="secondary"
                        disabled={action.busy}
                        onClick={() => act(() => gql(DashboardSendTestWebhookDocument, { id: hook.id }), t.testSent)}
                      >
                        {t.sendTest}
                      </button>
                    )}
                    {may('rotateWebhookSecret') && (
                      <ConfirmButton
                        label={t.rotate}
                        question={t.rotateConfirm}
                        disabled={action.busy}
                        onConfirm={() =>
                          act(async () => setSecret((await gql(DashboardRotateWebhookSecretDocument, { id: hook.id })).rotateWebhookSecret.secret))
                        }
                      />
                    )}
                    {may('deleteWebhook') && (
                      <ConfirmButton
                        label={t.delete}
                        question={t.deleteConfirm(hook.url)}
                        danger
                        disabled={action.busy}
                        onConfirm={() => act(() => gql(DashboardDeleteWebhookDocument, { id: hook.id }))}
                      />
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

/**
 * The gateway refuses private and loopback webhook addresses (it must not reach into its own
 * network), so a developer trying a receiver on their machine is shown the two ways that work: the
 * CLI forwarding the organisation's events there (`gateway listen`), or a development gateway
 * allowed to send to such addresses. The command names the address they typed.
 */
function LocalWebhooksHint({ organizationId, url }: { organizationId: string; url: string }) {
  const { t } = useApp();
  const target = /^https?:\/\/\S+$/i.test(url) ? url : 'http://127.0.0.1:PORT/webhooks';
  const command = `gateway listen --org ${organizationId} --forward-to ${target}`;
  return (
    <div class="tip" role="note" data-hint="local-webhooks">
      <p>
        <strong>{t.localWebhooksTitle}</strong> {t.localWebhooksListen}
      </p>
      <div class="secret-row">
        <code data-command>{command}</code>
        <CopyButton value={command} />
      </div>
      <p>
        {t.localWebhooksAllow[0]} <code>WEBHOOK_ALLOW_PRIVATE_URLS=true</code> {t.localWebhooksAllow[1]}
      </p>
    </div>
  );
}

type Delivery = DashboardDeliveriesQuery['webhookDeliveries']['edges'][number]['node'];

/** `<input type="datetime-local">`'s value for a time (local), and back to an ISO instant. */
const localInputValue = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

export function DeliveriesPage() {
  const { t, lang } = useApp();
  const may = useMay();
  const { query } = useLocation();
  const webhookId = query.get('webhook_id') || undefined;
  const status = (query.get('status') || undefined) as WebhookDeliveryStatus | undefined;
  const orderId = query.get('order_id') || undefined;
  const [after, setAfter] = useState<Array<string | undefined>>([undefined]);
  const cursor = after[after.length - 1];
  const hooks = useLoad(() => gql(DashboardWebhooksDocument), []);
  const list = useLoad(
    () => gql(DashboardDeliveriesDocument, { filter: { webhookId, status, orderId }, first: DELIVERIES_PAGE, after: cursor }),
    [query.toString(), cursor],
  );
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 86_400_000)));
  const setFilter = (name: string, value: string) => {
    const params = new URLSearchParams(query);
    if (value) params.set(name, value);
    else params.delete(name);
    setAfter([undefined]);
    const text = params.toString();
    navigate(text ? `/deliveries?${text}` : '/deliveries', { replace: true });
  };
  const redeliver = (id: string) =>
    action.run(async () => {
      await gql(DashboardRedeliverDocument, { deliveryId: id });
      setNotice(t.resent);
      list.reload();
    });
  const redeliverFailed = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const count = (await gql(DashboardRedeliverFailedDocument, { since: new Date(since).toISOString(), webhookId })).redeliverFailedWebhooks;
      setNotice(t.resentCount(count));
      list.reload();
    });
  };
  return (
    <>
      <p class="crumbs">
        <Link to="/integration">← {t.integration}</Link>
      </p>
      <PageTitle>{t.deliveryLog}</PageTitle>
      <section class="card">
        <div class="grid">
          <Loaded state={hooks}>
            {({ webhooks }) => (
              <Select
                label={t.webhook}
                name="webhook_id"
                value={webhookId ?? ''}
                onChange={(e) => setFilter('webhook_id', e.currentTarget.value)}
                options={[['', t.allWebhooks], ...webhooks.map((hook): [string, string] => [hook.id, hook.url])]}
              />
            )}
          </Loaded>
          <Select
            label={t.status}
            name="status"
            value={status ?? ''}
            onChange={(e) => setFilter('status', e.currentTarget.value)}
            options={[['', t.anyStatus], ...DELIVERY_STATUSES.map((value): [string, string] => [value, STATUS_NAMES[lang][value] ?? value])]}
          />
        </div>
        {may('redeliverFailedWebhooks') && (
          <form class="inline" onSubmit={redeliverFailed} method="post" action="#">
            <Field label={t.resendFailedSince} name="since" type="datetime-local" required value={since} onInput={(e) => setSince(e.currentTarget.value)} />
            <button type="submit" class="secondary" disabled={action.busy}>
              {t.resendFailed}
            </button>
          </form>
        )}
      </section>
      <Alert error={action.error} />
      {notice && <Notice>{notice}</Notice>}
      <Loaded state={list}>
        {({ webhookDeliveries }) => (
          <>
            {webhookDeliveries.edges.length === 0 && <p>{t.none}</p>}
            <ul class="plain deliveries">
              {webhookDeliveries.edges.map(({ node }) => (
                <DeliveryItem key={node.id} delivery={node} onRedeliver={may('redeliverWebhook') ? () => redeliver(node.id) : undefined} busy={action.busy} />
              ))}
            </ul>
            {(webhookDeliveries.pageInfo.hasNextPage || after.length > 1) && (
              <nav class="pager" aria-label={t.deliveryLog}>
                <button type="button" class="secondary" disabled={after.length <= 1} onClick={() => setAfter(after.slice(0, -1))}>
                  {t.previous}
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={!webhookDeliveries.pageInfo.hasNextPage}
                  onClick={() => setAfter([...after, webhookDeliveries.pageInfo.endCursor ?? undefined])}
                >
                  {t.next}
                </button>
              </nav>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

/**
 * Failed (every attempt, nothing more is sent) versus waiting (an attempt failed, another is due at
 * a time shown) versus queued (not tried yet): a "Pending" with no next time read as stuck (issue 30).
 */
function DeliveryState({ delivery }: { delivery: Delivery }) {
  const words = useWords();
  if (delivery.status === 'dropped') {
    return (
      <span class="badge" data-status="dropped" data-delivery-state="failed">
        {words.deliveryFailed}
      </span>
    );
  }
  if (delivery.status !== 'pending') return <StatusBadge status={delivery.status} />;
  const waiting = delivery.attempts.length > 0;
  return (
    <>
      <span class="badge" data-status="pending" data-delivery-state={waiting ? 'waiting' : 'queued'}>
        {waiting ? words.deliveryWaiting : words.deliveryQueued}
      </span>
      {delivery.nextAttemptAt && (
        <small class="hint" data-next-attempt={delivery.nextAttemptAt}>
          {' '}
          {words.nextAttempt}: <When at={delivery.nextAttemptAt} />
        </small>
      )}
    </>
  );
}

function DeliveryItem({ delivery, onRedeliver, busy }: { delivery: Delivery; onRedeliver?: () => void; busy: boolean }) {
  const { t } = useApp();
  return (
    <li class="card delivery" data-delivery-id={delivery.id} data-status={delivery.status}>
      <p>
        <When at={delivery.createdAt} /> <code>{delivery.event}</code> <DeliveryState delivery={delivery} />
        {delivery.orderId && (
          <>
            {' '}
            <Link to={`/transactions/${encodeURIComponent(delivery.orderId)}`}>
              <code>{delivery.orderId}</code>
            </Link>
          </>
        )}
      </p>
      <Table caption={t.attempts}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t.attemptAt}</th>
            <th scope="col">{t.statusCode}</th>
            <th scope="col" class="num">
              {t.duration}
            </th>
            <th scope="col">{t.error}</th>
          </tr>
        </thead>
        <tbody>
          {delivery.attempts.map((attempt) => (
            <tr key={attempt.number} data-attempt={attempt.number}>
              <td>{attempt.number}</td>
              <td>
                <When at={attempt.createdAt} />
              </td>
              <td data-status-code={attempt.statusCode ?? ''}>{attempt.statusCode ?? '—'}</td>
              <td class="num">{attempt.durationMs} ms</td>
              <td>{attempt.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </Table>
      <details>
        <summary>{t.signedBody}</summary>
        {delivery.attempts.at(-1)?.signature && (
          <p>
            {t.signature}: <code class="wrap">{delivery.attempts.at(-1)!.signature}</code>
          </p>
        )}
        <pre class="body">{delivery.body}</pre>
      </details>
      {onRedeliver && (
        <button type="button" class="secondary" disabled={busy} onClick={onRedeliver}>
          {t.resend}
        </button>
      )}
    </li>
  );
}
