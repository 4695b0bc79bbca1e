/**
 * What every page shares: the language and session in context, and small accessible pieces (a
 * labelled field, an alert, a copy button, a confirmation step, a status badge, money and dates).
 */
import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ACCESS_POLICY, type Operation } from '../../domain/access/policy.js';
import { ApiError, type Session } from './api.js';
import { formatDateTime, formatMoney, MESSAGES, STATUS_NAMES, type Lang, type Messages } from './i18n.js';

export interface AppState {
  lang: Lang;
  t: Messages;
  session: Session | null;
  setLang: (lang: Lang) => void;
  /** After sign-in, a second factor or sign-out: read the session again. */
  refreshSession: () => Promise<Session | null>;
}

export const AppContext = createContext<AppState>({
  lang: 'fr',
  t: MESSAGES.fr,
  session: null,
  setLang: () => undefined,
  refreshSession: async () => null,
});

export const useApp = () => useContext(AppContext);

/**
 * Whether the signed-in user's role may run an operation: read from the one access policy (the
 * server's table, bundled), only to hide what would be refused; the server decides.
 */
export function useMay(): (operation: Operation) => boolean {
  const { session } = useApp();
  return (operation) => {
    const users: readonly string[] | undefined = (ACCESS_POLICY[operation] as { users?: readonly string[] }).users;
    return !!session && !!users?.includes(session.user.role);
  };
}

/** The words of an error for the person in front of the screen. */
export function errorText(t: Messages, error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429 && error.retryAfterSeconds) return t.tooManyAttempts(error.retryAfterSeconds);
    return error.message;
  }
  return t.networkError;
}

/** An async action's state: running, its error, and a wrapper that sets both. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/** Data loaded for a page: reloaded when `deps` change or on reload(). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);
  return { ...state, reload: () => setGeneration((value) => value + 1) };
}

/** The loading line, an error with "try again", or the content. */
export function Loaded<T>({
  state,
  children,
}: {
  state: { data: T | undefined; error: unknown; loading: boolean; reload: () => void };
  children: (data: T) => ComponentChildren;
}) {
  const { t } = useApp();
  if (state.error) {
    return (
      <div>
        <Alert error={state.error} />
        <button type="button" onClick={state.reload}>
          {t.retry}
        </button>
      </div>
    );
  }
  if (state.data === undefined) return <p aria-live="polite">{t.loading}</p>;
  return <>{children(state.data)}</>;
}

/** A refusal or failure, announced to screen readers. */
export function Alert({ error }: { error: unknown }) {
  const { t } = useApp();
  if (!error) return null;
  return (
    <p class="alert" role="alert">
      {errorText(t, error)}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

let fieldCount = 0;
/** A labelled input (the label is the input's accessible name; a hint is its description). */
export function Field({ label, hint, ...input }: { label: string; hint?: string } & InputHTMLAttributes) {
  const id = useRef(`f${++fieldCount}`).current;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** A labelled select; `initial` (uncontrolled) marks the option selected at first render. */
export function Select({ label, options, initial, ...select }: { label: string; options: Array<[string, string]>; initial?: string } & SelectHTMLAttributes) {
  const id = useRef(`f${++fieldCount}`).current;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {options.map(([value, text]) => (
          <option value={value} key={value} selected={initial === undefined ? undefined : initial === value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A secret shown once: selectable text and a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="secret" role="status">
      <p>{label}</p>
      <div class="secret-row">
        <code data-secret>{value}</code>
        <CopyButton value={value} />
      </div>
    </div>
  );
}

export function CopyButton({ value }: { value: string }) {
  const { t } = useApp();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // No clipboard (insecure origin, refused): the text stays selectable.
    }
  };
  return (
    <button type="button" class="secondary" onClick={copy} aria-live="polite">
      {copied ? t.copied : t.copy}
    </button>
  );
}

/**
 * A button that asks before acting: the first press shows the question with Confirm and Cancel
 * (focus moves to Confirm); only Confirm runs the action.
 */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  danger,
  disabled,
}: {
  label: string;
  question: string;
  onConfirm: () => unknown;
  danger?: boolean;
  disabled?: boolean;
}) {
  const { t } = useApp();
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class={danger ? 'danger' : undefined} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a <fieldset> would bring its own rendering (min-inline-size: min-content, border, padding) to a two-button prompt that is not a group of form fields; role=group with its label is the same group to assistive technology
    <div class="confirm" role="group" aria-label={label}>
      <p>{question}</p>
      <button
        type="button"
        ref={confirmRef}
        class={danger ? 'danger' : undefined}
        disabled={disabled}
        onClick={async () => {
          await onConfirm();
          setAsking(false);
        }}
      >
        {t.confirm}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        {t.cancel}
      </button>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const { lang } = useApp();
  return (
    <span class="badge" data-status={status}>
      {STATUS_NAMES[lang][status] ?? status}
    </span>
  );
}

export function Money({ amount }: { amount: number }) {
  const { lang } = useApp();
  return (
    <span class="money" data-amount={amount}>
      {formatMoney(lang, amount)}
    </span>
  );
}

export function When({ at }: { at: string | null | undefined }) {
  const { lang } = useApp();
  return at ? <time dateTime={at}>{formatDateTime(lang, at)}</time> : <span>—</span>;
}

/** A page's title (focused after navigation, so a screen reader announces the new page). */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const { t } = useApp();
  useEffect(() => {
    document.title = typeof children === 'string' ? `${children} · ${t.appName}` : t.appName;
  });
  return <h1 tabIndex={-1}>{children}</h1>;
}

/** A table that scrolls sideways on a phone instead of widening the page. */
/**
 * A data table in a scrollable region. `stacked`: on a phone each row becomes a card, its cells
 * labelled by their column (the cell's data-label), for tables too wide to scroll through.
 */
export function Table({ caption, children, stacked = false }: { caption?: string; children: ComponentChildren; stacked?: boolean }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the region scrolls sideways on a phone; keyboard users must be able to focus it to scroll it (WCAG 2.1.1)
    <section class="table-wrap" tabIndex={0} aria-label={caption}>
      <table class={stacked ? 'stacked' : undefined}>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        {children}
      </table>
    </section>
  );
}
