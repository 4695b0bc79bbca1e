/**
 * The owner's pages: the team (invite with a role, change a role, remove, require two-step
 * verification), the business profile (name, sector) and the audit log. Settings also hold the
 * user's own two-step verification, for every role.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import {
  DashboardAuditDocument,
  DashboardChangeRoleDocument,
  DashboardInviteDocument,
  DashboardMeDocument,
  DashboardRemoveMemberDocument,
  DashboardRequireTwoFactorDocument,
  DashboardTeamDocument,
  DashboardUpdateProfileDocument,
  type MerchantRole,
} from '../generated.js';
import { AUDIT_ACTIONS } from '../../../domain/audit/actions.js';
import { Link } from '../router.js';
import { AUDIT_DETAIL_NAMES, formatDateTime } from '../i18n.js';
import { actorText, ChoicesExplained, useWords } from '../words.js';
import { Alert, ConfirmButton, Field, Loaded, Notice, PageTitle, SecretOnce, Select, Table, When, useAction, useApp, useLoad, useMay } from '../ui.js';
import { OwnTwoFactor } from './ownTwoFactor.js';

const ROLES: MerchantRole[] = ['owner', 'developer', 'operations', 'viewer'];
const AUDIT_PAGE = 50;

export function TeamPage() {
  const { t, session } = useApp();
  const words = useWords();
  const team = useLoad(() => gql(DashboardTeamDocument), []);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MerchantRole>('viewer');
  const [invitation, setInvitation] = useState<{ email: string; link: string } | null>(null);
  const [requireTwoFactor, setRequireTwoFactor] = useState<boolean | null>(null);
  const roleOptions = ROLES.map((value): [string, string] => [value, t.roles[value] ?? value]);
  const act = (work: () => Promise<unknown>) =>
    action.run(async () => {
      await work();
      team.reload();
      return true;
    });
  const invite = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const { inviteMember } = await gql(DashboardInviteDocument, { email: email.trim(), role });
      setInvitation({ email: inviteMember.email, link: inviteMember.link });
      setEmail('');
    });
  };
  return (
    <>
      <PageTitle>{t.team}</PageTitle>
      <Alert error={action.error} />
      <section class="card" aria-labelledby="invite">
        <h2 id="invite">{t.inviteMember}</h2>
        {invitation && <SecretOnce label={t.invitationLink(invitation.email)} value={invitation.link} />}
        <form class="inline" onSubmit={invite} method="post" action="#">
          <Field label={t.email} name="email" type="email" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <Select label={t.role} name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as MerchantRole)} options={roleOptions} />
          <p class="hint choice-help" aria-live="polite" data-role-help={role}>
            {words.roleHelp[role]}
          </p>
          <button type="submit" disabled={action.busy}>
            {t.invite}
          </button>
        </form>
        <ChoicesExplained title={words.rolesExplained} names={ROLES} help={words.roleHelp} label={(name) => t.roles[name] ?? name} />
      </section>
      <Loaded state={team}>
        {({ members, me }) => (
          <section class="card" aria-labelledby="members">
            <h2 id="members">{t.members}</h2>
            <label class="check">
              <input
                type="checkbox"
                name="requireTwoFactor"
                checked={requireTwoFactor ?? me.organization.requireTwoFactor}
                disabled={action.busy}
                onChange={(e) => {
                  const required = e.currentTarget.checked;
                  // Shown as asked at once; a refusal puts back what the server holds.
                  setRequireTwoFactor(required);
                  void act(() => gql(DashboardRequireTwoFactorDocument, { required })).then((done) => done === undefined && setRequireTwoFactor(null));
                }}
              />{' '}
              {t.requireTwoFactor}
            </label>
            <Table caption={t.members}>
              <thead>
                <tr>
                  <th scope="col">{t.email}</th>
                  <th scope="col">{t.role}</th>
                  <th scope="col">{t.twoFactor}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t.remove}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {members.map((member) => {
                  const self = member.email === session?.user.email;
                  return (
                    <tr key={member.id} data-member={member.email}>
                      <td>
                        {member.email} {self && <small class="hint">{t.you}</small>}
                      </td>
                      <td>
                        {self ? (
                          (t.roles[member.role] ?? member.role)
                        ) : (
                          <select
                            aria-label={`${t.changeRole}: ${member.email}`}
                            value={member.role}
                            disabled={action.busy}
                            onChange={(e) => act(() => gql(DashboardChangeRoleDocument, { userId: member.id, role: e.currentTarget.value as MerchantRole }))}
                          >
                            {roleOptions.map(([value, text]) => (
                              <option value={value} key={value}>
                                {text}
                              </option>
                            ))}
                          </select>
                        )}
                      </td>
                      <td>{member.twoFactorEnabled ? t.on : t.off}</td>
                      <td>
                        {!self && (
                          <ConfirmButton
                            label={t.remove}
                            question={t.removeConfirm(member.email)}
                            danger
                            disabled={action.busy}
                            onConfirm={() => act(() => gql(DashboardRemoveMemberDocument, { userId: member.id }))}
                          />
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          </section>
        )}
      </Loaded>
    </>
  );
}

export function SettingsPage() {
  const { t, session } = useApp();
  const may = useMay();
  const me = useLoad(() => gql(DashboardMeDocument), []);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const [turnedOff, setTurnedOff] = useState(false);
  const save = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      setSaved(false);
      await gql(DashboardUpdateProfileDocument, { name: String(form.get('name') ?? '').trim(), sector: String(form.get('sector') ?? '').trim() });
      setSaved(true);
      me.reload();
    });
  };
  return (
    <>
      <PageTitle>{t.settings}</PageTitle>
      <Loaded state={me}>
        {({ me: user }) => (
          <>
            <section class="card narrow" aria-labelledby="profile">
              <h2 id="profile">{t.businessProfile}</h2>
              {saved && <Notice>{t.saved}</Notice>}
              <Alert error={action.error} />
              {may('updateBusinessProfile') ? (
                <form onSubmit={save} method="post" action="#">
                  <Field label={t.businessName} name="name" required maxLength={100} defaultValue={user.organization.name} />
                  <Field label={t.sector} name="sector" required maxLength={100} defaultValue={user.organization.businessSector ?? ''} />
                  <button type="submit" disabled={action.busy}>
                    {t.save}
                  </button>
                </form>
              ) : (
                <dl class="pairs">
                  <dt>{t.businessName}</dt>
                  <dd>{user.organization.name}</dd>
                  <dt>{t.sector}</dt>
                  <dd>{user.organization.businessSector ?? '—'}</dd>
                </dl>
              )}
            </section>
            <section class="card narrow" aria-labelledby="account">
              <h2 id="account">{t.account}</h2>
              <dl class="pairs">
                <dt>{t.email}</dt>
                <dd>{user.email}</dd>
                <dt>{t.role}</dt>
                <dd data-role={user.role}>{t.roles[user.role] ?? user.role}</dd>
              </dl>
              {turnedOff ? <Notice>{t.twoFactorTurnedOff}</Notice> : <p>{user.twoFactorEnabled ? t.twoFactorIsOn : t.twoFactorIsOff}</p>}
              {!user.twoFactorEnabled && session && (
                <Link to="/two-factor" class="button">
                  {t.setUpTwoFactor}
                </Link>
              )}
            </section>
            {user.twoFactorEnabled && (
              <OwnTwoFactor
                onTurnedOff={() => {
                  setTurnedOff(true);
                  me.reload();
                }}
              />
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

export function AuditPage() {
  const { t } = useApp();
  const words = useWords();
  const [action, setAction] = useState('');
  const [after, setAfter] = useState<Array<string | undefined>>([undefined]);
  const cursor = after[after.length - 1];
  const events = useLoad(() => gql(DashboardAuditDocument, { first: AUDIT_PAGE, after: cursor, action: action || undefined }), [action, cursor]);
  return (
    <>
      <PageTitle>{t.audit}</PageTitle>
      <section class="card">
        <Select
          label={t.action}
          name="action"
          value={action}
          onChange={(e) => {
            setAction(e.currentTarget.value);
            setAfter([undefined]);
          }}
          options={[['', t.anyAction], ...AUDIT_ACTIONS.map((value): [string, string] => [value, words.auditActions[value] ?? value])]}
        />
      </section>
      <Loaded state={events}>
        {({ auditEvents }) => (
          <>
            {auditEvents.edges.length === 0 ? (
              <p>{t.none}</p>
            ) : (
              <Table caption={t.audit} stacked>
                <thead>
                  <tr>
                    <th scope="col">{t.when}</th>
                    <th scope="col">{t.who}</th>
                    <th scope="col">{t.action}</th>
                    <th scope="col">{t.target}</th>
                  </tr>
                </thead>
                <tbody>
                  {auditEvents.edges.map(({ node }) => (
                    <tr key={node.id} data-action={node.action}>
                      <td data-label={t.when}>
                        <When at={node.at} />
                      </td>
                      <td data-label={t.who}>
                        <span class="actor">{actorText(words, node)}</span>
                      </td>
                      <td data-label={t.action}>
                        <span data-action-name>{words.auditActions[node.action] ?? node.action}</span>
                      </td>
                      <td data-label={t.target}>
                        <div>
                          {node.target && <code class="wrap">{node.target}</code>}
                          {node.details && <AuditDetails details={node.details} />}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
            {(auditEvents.pageInfo.hasNextPage || after.length > 1) && (
              <nav class="pager" aria-label={t.audit}>
                <button type="button" class="secondary" disabled={after.length <= 1} onClick={() => setAfter(after.slice(0, -1))}>
                  {t.previous}
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={!auditEvents.pageInfo.hasNextPage}
                  onClick={() => setAfter([...after, auditEvents.pageInfo.endCursor ?? undefined])}
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

/** An event's details (compact JSON from the server) as "key: value" pairs (nested values as compact JSON); any other text as it is. */
function AuditDetails({ details }: { details: string }) {
  const { lang, t } = useApp();
  const pairs = detailPairs(details);
  if (!pairs) return <small class="hint"> {details}</small>;
  const names = AUDIT_DETAIL_NAMES[lang];
  const words = useWords();
  // Coded values in the reader's words: roles, the second factor used, booleans, times; others as stored.
  const detailValueText = (key: string, value: unknown): string => {
    if (typeof value === 'boolean') return value ? t.yes : t.no;
    if (value === null) return key === 'webhookId' ? words.allWebhooksValue : '—';
    if (typeof value !== 'string') return JSON.stringify(value);
    if (key === 'role' || ((key === 'from' || key === 'to') && t.roles[value])) return t.roles[value] ?? value;
    if (key === 'since' || key === 'at') return formatDateTime(lang, value);
    if (key === 'scope') return words.scopeNames[value] ?? value;
    return words.detailValues[key]?.[value] ?? value;
  };
  return (
    <dl class="pairs details" data-details>
      {pairs.map(([key, value]) => (
        <Fragment key={key}>
          <dt>{names[key] ?? key}</dt>
          <dd>{detailValueText(key, value)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** The top-level keys and values of a JSON object; null when the text is not one. */
function detailPairs(details: string): Array<[string, unknown]> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  return Object.entries(parsed);
}
