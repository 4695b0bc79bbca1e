/**
 * How the dashboard talks to the gateway: the session endpoints of src/dashboard/auth/ (JSON), and
 * POST /graphql with the session cookie (same origin) and the session's CSRF token in X-CSRF-Token
 * on every request (docs/dashboard.md). Nothing here decides who may do what: the server does.
 */
import { serverSentEvents } from '../../edge/serverSentEvents.js';
import type { MerchantRole } from './generated.js';

interface SessionUser {
  email: string;
  role: MerchantRole;
  organizationId: string;
  organizationName: string;
}

export interface Session {
  user: SessionUser;
  csrfToken: string;
  twoFactorEnabled: boolean;
  /** The team requires two-step verification and this user has none yet: only enrolment works. */
  mustEnrolTwoFactor?: boolean;
}

export type SignInStep = 'two_factor' | 'enrol_two_factor' | 'done' | 'sign_in';

/** A refusal the user can read: the server's wording, its HTTP status and GraphQL code. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The CSRF token of the current session (from sign-in, the second factor, or GET session). */
let csrfToken = '';
/** Called when the server says the session is gone (expired, signed out elsewhere). */
let onSessionLost: () => void = () => undefined;
export const whenSessionLost = (handler: () => void): void => {
  onSessionLost = handler;
};

const AUTH = '/dashboard/auth';

/** A GraphQL error as the gateway words it: the catalogue's message, its code and HTTP status. */
interface GraphqlError {
  message?: string;
  extensions?: { code?: string; status?: number };
}

/** The JSON the gateway answers: a session, a sign-in step, a refusal ({error}) or a GraphQL result. */
interface Answer {
  id?: string;
  user?: Partial<SessionUser>;
  csrfToken?: string;
  next?: SignInStep;
  error?: unknown;
  errors?: GraphqlError[];
  data?: unknown;
}

/** The body as JSON; {} when it is empty or not JSON. */
async function readJson(response: Response): Promise<Answer> {
  const text = await response.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function refusal(response: Response, body: Answer): ApiError {
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    typeof body?.error === 'string' ? body.error : response.statusText || `HTTP ${response.status}`,
    response.status,
    undefined,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/** The signed-in user, or null when there is no (complete) session. */
export async function loadSession(): Promise<Session | null> {
  const response = await fetch(`${AUTH}/session`, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' });
  if (response.status === 401) return null;
  const body = await readJson(response);
  if (!response.ok) throw refusal(response, body);
  if (!body?.user?.email) return null;
  csrfToken = body.csrfToken ?? '';
  return body as Session;
}

/** One of the session endpoints: JSON in, `{next, csrfToken}` out; a refusal throws ApiError. */
export async function authPost(
  path: 'sign-in' | 'second-factor' | 'accept-invitation' | 'sign-out',
  body: Record<string, string> = {},
): Promise<{ next?: SignInStep }> {
  const response = await fetch(`${AUTH}/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(csrfToken && { 'x-csrf-token': csrfToken }) },
    body: JSON.stringify(body),
  });
  const answer = await readJson(response);
  if (!response.ok) throw refusal(response, answer);
  if (typeof answer.csrfToken === 'string') csrfToken = answer.csrfToken;
  if (path === 'sign-out') csrfToken = '';
  return answer;
}

/** What codegen's TypedDocumentString is: the operation's text, typed by its result and variables. */
export interface Document<TResult, TVariables> {
  toString(): string;
  /** Phantom: never read; carries the types. */
  __apiType?: (variables: TVariables) => TResult;
}

/**
 * One GraphQL operation. Errors: the first GraphQL error's message (the server's catalogue) with its
 * extensions.code; UNAUTHENTICATED ends the session on this side too.
 */
export async function gql<TResult, TVariables>(
  document: Document<TResult, TVariables>,
  ...[variables]: TVariables extends Record<string, never> ? [] | [TVariables] : [TVariables]
): Promise<TResult> {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
  });
  const body = await readJson(response);
  const error = Array.isArray(body.errors) ? body.errors[0] : null;
  if (error || !response.ok) {
    const code: string | undefined = error?.extensions?.code;
    if (response.status === 401 || code === 'UNAUTHENTICATED') onSessionLost();
    throw new ApiError(error?.message ?? response.statusText, error?.extensions?.status ?? response.status, code);
  }
  return body.data as TResult;
}

/**
 * A GraphQL subscription, live (docs/graphql.md#live-updates): POST /graphql asking for Server-Sent
 * Events, with the session's cookie and CSRF token like every request. `onData` gets each result's
 * data as it comes. Resolves when the server completes the stream; rejects (ApiError) when it is
 * refused or an event carries an error, and (Error) when the connection fails or drops: the caller
 * then reads otherwise.
 */
export async function subscribe<TResult, TVariables>(
  document: Document<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-csrf-token': csrfToken },
    body: JSON.stringify({ query: document.toString(), variables }),
    signal,
  });
  if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = await readJson(response);
    const error = Array.isArray(body.errors) ? body.errors[0] : null;
    if (response.status === 401 || error?.extensions?.code === 'UNAUTHENTICATED') onSessionLost();
    throw new ApiError(error?.message ?? response.statusText, error?.extensions?.status ?? response.status, error?.extensions?.code);
  }
  for await (const { event, data } of serverSentEvents(response.body)) {
    if (event === 'complete') return;
    if (event !== 'next' || !data) continue;
    const result = JSON.parse(data) as Answer;
    const error = Array.isArray(result.errors) ? result.errors[0] : null;
    if (error) throw new ApiError(error.message ?? 'Error', error.extensions?.status ?? 500, error.extensions?.code);
    onData(result.data as TResult);
  }
  throw new Error('the live connection closed');
}

/** Where the dashboard uploads a payout batch's CSV file (src/dashboard/uploads.ts: larger than GraphQL's bodies may be). */
const PAYOUT_BATCH_UPLOAD = '/dashboard/uploads/payout-batch';

/** Uploads a payout batch's CSV file as it is: the draft's id, or the refusal (ApiError: too large, a bad header...). */
export async function uploadPayoutBatchCsv(file: Blob): Promise<{ id: string }> {
  const response = await fetch(PAYOUT_BATCH_UPLOAD, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'text/csv', accept: 'application/json', 'x-csrf-token': csrfToken },
    body: file,
  });
  const body = await readJson(response);
  if (!response.ok) {
    if (response.status === 401) onSessionLost();
    throw refusal(response, body);
  }
  return { id: String(body.id) };
}
