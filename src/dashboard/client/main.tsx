/**
 * The merchant dashboard's browser app (docs/dashboard.md): reads the session, then shows the
 * sign-in steps or the app (header, navigation, the page of the address). Bundled by
 * scripts/build.mjs into dist/dashboard/assets/; served by src/dashboard/app.ts.
 */
import './styles.css';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { authPost, loadSession, whenSessionLost, type Session } from './api.js';
import { MESSAGES, initialLanguage, rememberLanguage, type Lang } from './i18n.js';
import { EnrolTwoFactorPage, InvitationPage, SecondFactorPage, SignInPage } from './pages/auth.js';
import { DeliveriesPage, IntegrationPage } from './pages/integration.js';
import { HomePage, SearchBox, SearchPage } from './pages/home.js';
import { BalancesPage, NewPayoutPage, PayoutPage, PayoutsPage, TransactionPage, TransactionsPage } from './pages/money.js';
import { AuditPage, SettingsPage, TeamPage } from './pages/team.js';
import { NewPaymentLinkPage, PaymentLinkPage, PaymentLinksPage } from './pages/links.js';
import { LINK_MESSAGES } from './pages/linksMessages.js';
import { NewPayoutBatchPage, PayoutBatchPage } from './pages/batches.js';
import { Link, match, navigate, useLocation } from './router.js';
import { WORDS } from './words.js';
import { AppContext, PageTitle, errorText, useApp, useMay, type AppState } from './ui.js';

/** Pages reached without a session (the sign-in steps). */
const PUBLIC_PATHS = new Set(['/sign-in', '/second-factor', '/invitation', '/two-factor']);

function App() {
  const [lang, setLangState] = useState<Lang>(initialLanguage);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [bootError, setBootError] = useState<unknown>(null);
  const [sessionEnded, setSessionEnded] = useState(false);
  const { path } = useLocation();

  const refreshSession = async () => {
    const current = await loadSession();
    setSession(current);
    return current;
  };
  useEffect(() => {
    refreshSession().catch(setBootError);
    whenSessionLost(() => {
      setSession(null);
      setSessionEnded(true);
    });
  }, []);

  const state: AppState = useMemo(
    () => ({
      lang,
      t: MESSAGES[lang],
      session: session ?? null,
      setLang: (next) => {
        rememberLanguage(next);
        setLangState(next);
      },
      refreshSession,
    }),
    [lang, session],
  );

  // Signed out: the sign-in steps only; signed in: not the sign-in page.
  useEffect(() => {
    if (session === null && !PUBLIC_PATHS.has(path)) navigate('/sign-in', { replace: true });
    if (session && (path === '/sign-in' || path === '/second-factor')) navigate('/', { replace: true });
  }, [session, path]);

  const t = MESSAGES[lang];
  if (bootError) {
    return (
      <AppContext.Provider value={state}>
        <main id="main" class="narrow">
          <p class="alert" role="alert">
            {errorText(t, bootError)}
          </p>
          <button type="button" onClick={() => location.reload()}>
            {t.retry}
          </button>
        </main>
      </AppContext.Provider>
    );
  }
  if (session === undefined) return <p class="boot">{t.loading}</p>;
  return (
    <AppContext.Provider value={state}>
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <Header />
      <main id="main">
        {session?.mustEnrolTwoFactor ? (
          <EnrolTwoFactorPage required />
        ) : session ? (
          <SignedIn path={path} />
        ) : (
          <SignedOut path={path} notice={sessionEnded ? t.sessionEnded : undefined} />
        )}
      </main>
    </AppContext.Provider>
  );
}

function SignedOut({ path, notice }: { path: string; notice?: string }) {
  const { t } = useApp();
  const { query } = useLocation();
  if (path === '/second-factor') return <SecondFactorPage />;
  if (path === '/invitation') return <InvitationPage />;
  if (path === '/two-factor') return <EnrolTwoFactorPage required />;
  return <SignInPage notice={query.get('invited') ? t.invitationDone : notice} />;
}

function SignedIn({ path }: { path: string }) {
  const { t, lang } = useApp();
  const may = useMay();
  if (path === '/') return <HomePage />;
  if (path === '/search') return <SearchPage />;
  if (path === '/transactions') return <TransactionsPage />;
  const transaction = match('/transactions/:orderId', path);
  if (transaction) return <TransactionPage orderId={transaction.orderId!} />;
  if (path === '/payouts') return <PayoutsPage />;
  if (path === '/payouts/new' && may('createPayout')) return <NewPayoutPage />;
  if (path === '/payouts/batch' && may('createPayoutBatch')) return <NewPayoutBatchPage />;
  const batch = match('/payouts/batches/:id', path);
  if (batch) return <PayoutBatchPage id={batch.id!} />;
  const payout = match('/payouts/:orderId', path);
  if (payout) return <PayoutPage orderId={payout.orderId!} />;
  if (path === '/balances') return <BalancesPage />;
  if (path === '/links') return <PaymentLinksPage />;
  if (path === '/links/new' && may('createPaymentLink')) return <NewPaymentLinkPage />;
  const paymentLink = match('/links/:id', path);
  if (paymentLink) return <PaymentLinkPage id={paymentLink.id!} />;
  if (path === '/integration') return <IntegrationPage />;
  if (path === '/deliveries') return <DeliveriesPage />;
  if (path === '/team' && may('listMembers')) return <TeamPage />;
  if (path === '/audit' && may('listAuditEvents')) return <AuditPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/two-factor') return <EnrolTwoFactorPage required={false} />;
  if (path === '/invitation') return <InvitationPage />;
  return (
    <>
      <PageTitle>{t.notFound}</PageTitle>
      <Link to="/">{WORDS[lang].home}</Link>
    </>
  );
}

function Header() {
  const { t, lang, setLang, session, refreshSession } = useApp();
  const may = useMay();
  const { path } = useLocation();
  const other: Lang = lang === 'fr' ? 'en' : 'fr';
  const signOut = async () => {
    try {
      await authPost('sign-out');
    } finally {
      await refreshSession().catch(() => undefined);
      navigate('/sign-in', { replace: true });
    }
  };
  const items: Array<[string, string, boolean]> = [
    ['/', WORDS[lang].home, true],
    ['/transactions', t.transactions, true],
    ['/payouts', t.payouts, true],
    ['/links', LINK_MESSAGES[lang].nav, true],
    ['/balances', t.balances, true],
    ['/integration', t.integration, true],
    ['/team', t.team, may('listMembers')],
    ['/audit', t.audit, may('listAuditEvents')],
    ['/settings', t.settings, true],
  ];
  const current = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`) || (to === '/integration' && path === '/deliveries'));
  return (
    <header class="top">
      <div class="bar">
        <span class="brand">{session ? session.user.organizationName : t.appName}</span>
        <span class="who">
          {session && (
            <>
              <span class="email">{session.user.email}</span> <span class="badge role">{t.roles[session.user.role]}</span>
            </>
          )}
          <button type="button" class="link" lang={other} aria-label={MESSAGES[lang].otherLanguageLabel} onClick={() => setLang(other)}>
            {t.otherLanguage}
          </button>
          {session && (
            <button type="button" class="link" onClick={signOut}>
              {t.signOut}
            </button>
          )}
        </span>
      </div>
      {session && !session.mustEnrolTwoFactor && <SearchBox />}
      {session && !session.mustEnrolTwoFactor && (
        <nav aria-label={t.nav}>
          <ul>
            {items
              .filter(([, , shown]) => shown)
              .map(([to, label]) => (
                <li key={to}>
                  <Link to={to} aria-current={current(to) ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
      )}
    </header>
  );
}

render(<App />, document.getElementById('app')!);
