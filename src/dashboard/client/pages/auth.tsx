/**
 * Signing in: email and password, then the second factor (TOTP or a recovery code); setting a
 * password from an invitation link (the token travels in the URL fragment: never sent to a server
 * in a Referer or a log); turning two-step verification on (secret, setup link, QR code).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { qrDrawing } from '../../../edge/qrCode.js';
import { authPost, gql } from '../api.js';
import { ConfirmTwoFactorEnrolmentDocument, StartTwoFactorEnrolmentDocument } from '../generated.js';
import { useWords } from '../words.js';
import { navigate } from '../router.js';
import { Alert, CopyButton, Field, Notice, PageTitle, useAction, useApp } from '../ui.js';

/** Where the sign-in step leads. */
async function afterStep(next: string | undefined, refreshSession: () => Promise<unknown>): Promise<void> {
  if (next === 'two_factor') return navigate('/second-factor');
  if (next === 'enrol_two_factor') return navigate('/two-factor');
  await refreshSession();
  navigate('/', { replace: true });
}

export function SignInPage({ notice }: { notice?: string }) {
  const { t, refreshSession } = useApp();
  const { busy, error, run } = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => afterStep((await authPost('sign-in', { email, password })).next, refreshSession));
  };
  return (
    <section class="card narrow">
      <PageTitle>{t.signInTitle}</PageTitle>
      {notice && <Notice>{notice}</Notice>}
      <Alert error={error} />
      <form onSubmit={submit} method="post" action="#">
        <Field label={t.email} type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field
          label={t.password}
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
    </section>
  );
}

export function SecondFactorPage() {
  const { t, refreshSession } = useApp();
  const { busy, error, run } = useAction();
  const [code, setCode] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => afterStep((await authPost('second-factor', { code: code.trim() })).next, refreshSession));
  };
  return (
    <section class="card narrow">
      <PageTitle>{t.secondFactorTitle}</PageTitle>
      <p>{t.secondFactorHelp}</p>
      <Alert error={error} />
      <form onSubmit={submit} method="post" action="#">
        <Field
          label={t.code}
          name="code"
          autoComplete="one-time-code"
          inputMode="text"
          spellcheck={false}
          required
          maxLength={32}
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {t.verify}
        </button>
      </form>
    </section>
  );
}

/** Read once: the fragment is then removed from the address bar (and from history). */
function takeInvitationToken(): string {
  const token = decodeURIComponent(location.hash.slice(1));
  if (token) history.replaceState(null, '', location.pathname);
  return token;
}

export function InvitationPage() {
  const { t } = useApp();
  const token = useMemo(takeInvitationToken, []);
  const { busy, error, setError, run } = useAction();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return setError(null);
    void run(async () => {
      await authPost('accept-invitation', { token, password });
      navigate('/sign-in?invited=1', { replace: true });
    });
  };
  if (!token) {
    return (
      <section class="card narrow">
        <PageTitle>{t.invitationTitle}</PageTitle>
        <p class="alert" role="alert">
          {t.invitationMissing}
        </p>
      </section>
    );
  }
  return (
    <section class="card narrow">
      <PageTitle>{t.invitationTitle}</PageTitle>
      <p>{t.invitationHelp}</p>
      <Alert error={error} />
      {mismatch && (
        <p class="alert" role="alert">
          {t.passwordsDiffer}
        </p>
      )}
      <form onSubmit={submit} method="post" action="#">
        <Field
          label={t.newPassword}
          hint={t.passwordLength}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={12}
          maxLength={128}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Field
          label={t.repeatPassword}
          type="password"
          name="repeat"
          autoComplete="new-password"
          required
          minLength={12}
          maxLength={128}
          value={repeat}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {t.setPassword}
        </button>
      </form>
    </section>
  );
}

/** Pixels per QR module: whole pixels keep the modules sharp (no seams), and a 57-module code fits a 360 px screen unscaled. */
const QR_MODULE_PX = 4;

/** The otpauth URL as a QR code: one SVG path, a run of dark modules per segment (no script, no image request). */
function QrCode({ text, label }: { text: string; label: string }) {
  const { path, size } = useMemo(() => qrDrawing(text, 2), [text]);
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${size} ${size}`}
      width={size * QR_MODULE_PX}
      height={size * QR_MODULE_PX}
      role="img"
      aria-label={label}
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} class="qr-light" />
      <path d={path} class="qr-dark" />
    </svg>
  );
}

/** Turning two-step verification on: required by the team (after sign-in) or chosen in Settings. */
export function EnrolTwoFactorPage({ required }: { required: boolean }) {
  const { t, refreshSession } = useApp();
  const start = useAction();
  const confirm = useAction();
  const words = useWords();
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauthUrl: string; renewed: boolean } | null>(null);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  // The server keeps the pending secret until enrolment completes: a reload shows the same one.
  const load = (renew: boolean) => start.run(async () => setEnrolment((await gql(StartTwoFactorEnrolmentDocument, { renew })).startTwoFactorEnrolment));
  useEffect(() => {
    void load(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    void confirm.run(async () => setRecoveryCodes((await gql(ConfirmTwoFactorEnrolmentDocument, { code: code.trim() })).confirmTwoFactorEnrolment));
  };
  if (recoveryCodes) {
    return (
      <section class="card narrow">
        <PageTitle>{t.recoveryTitle}</PageTitle>
        <p>{t.recoveryHelp}</p>
        <ul class="codes" data-recovery-codes>
          {recoveryCodes.map((recovery) => (
            <li key={recovery}>
              <code>{recovery}</code>
            </li>
          ))}
        </ul>
        <CopyButton value={recoveryCodes.join('\n')} />
        <button
          type="button"
          onClick={async () => {
            await refreshSession();
            navigate('/', { replace: true });
          }}
        >
          {t.continue}
        </button>
      </section>
    );
  }
  return (
    <section class="card narrow">
      <PageTitle>{t.enrolTitle}</PageTitle>
      {required && <Notice>{t.enrolRequired}</Notice>}
      <p>{t.enrolHelp}</p>
      <Alert error={start.error} />
      {enrolment && (
        <>
          {enrolment.renewed ? (
            <Notice>{words.secretRenewed}</Notice>
          ) : (
            <p class="hint" data-secret-kept>
              {words.secretKept}
            </p>
          )}
          <QrCode text={enrolment.otpauthUrl} label={t.otpauthUrl} />
          <dl class="pairs">
            <dt>{t.secret}</dt>
            <dd>
              <code data-totp-secret>{enrolment.secret}</code> <CopyButton value={enrolment.secret} />
            </dd>
            <dt>{t.otpauthUrl}</dt>
            <dd>
              <code class="wrap">{enrolment.otpauthUrl}</code>
            </dd>
          </dl>
          <Alert error={confirm.error} />
          <form onSubmit={submit} method="post" action="#">
            <Field
              label={t.code}
              name="code"
              autoComplete="one-time-code"
              inputMode="numeric"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <button type="submit" disabled={confirm.busy}>
              {t.enable}
            </button>
          </form>
          <p>
            <button type="button" class="link" disabled={start.busy} onClick={() => void load(true)}>
              {words.renewSecret}
            </button>
          </p>
        </>
      )}
    </section>
  );
}
