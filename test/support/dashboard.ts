/**
 * A browser's side of the dashboard session, over real HTTP: a cookie jar holding
 * `gateway_session`, the CSRF token the server handed out, and the session endpoints and /graphql
 * called as the dashboard's client calls them. Plus team fixtures: invite (as an operator, through
 * GraphQL) and accept, sign in, enrol in two-factor sign-in.
 */
import { randomBytes } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { expect } from 'vitest';
import type { MerchantRole } from '../../src/generated/prisma/enums.js';
import { TOTP_PERIOD_SECONDS, totpCodeAt } from '../../src/domain/users/secondFactor.js';
import { ConfirmTwoFactorEnrolmentDocument, InviteMemberDocument, StartTwoFactorEnrolmentDocument } from './graphql/generated.js';
import { graphqlTyped, type TypedBody } from './graphql/typed.js';
import type { TestGateway } from './gateway.js';
import { httpRequest } from './http.js';

export const PASSWORD = 'correct horse battery staple';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** The session cookie a Set-Cookie header sets (undefined: none; '' : cleared). */
function sessionCookieSet(headers: Headers): string | undefined {
  const setCookie = headers.get('set-cookie');
  if (!setCookie) return undefined;
  const match = /(?:^|,\s*)gateway_session=([^;]*)/.exec(setCookie);
  return match ? match[1] : undefined;
}

export class DashboardBrowser {
  /** The cookie's value, as the browser would send it. */
  cookie: string | undefined;
  csrfToken = '';

  constructor(readonly gateway: TestGateway) {}

  async request(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; csrf?: string | null } = {}): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    if (this.cookie) headers.cookie = `theme=dark; gateway_session=${this.cookie}`;
    const csrf = options.csrf === undefined ? this.csrfToken : options.csrf;
    if (csrf) headers['x-csrf-token'] = csrf;
    const response = await httpRequest(`${this.gateway.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const set = sessionCookieSet(response.headers);
    if (set !== undefined) this.cookie = set || undefined;
    const text = response.text;
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the text
    }
    if (typeof body?.csrfToken === 'string') this.csrfToken = body.csrfToken;
    return { status: response.status, body, headers: response.headers };
  }

  post = (path: string, body: unknown = {}, options: { headers?: Record<string, string>; csrf?: string | null } = {}) =>
    this.request('POST', `/dashboard/auth/${path}`, { body, ...options });

  signIn = (email: string, password = PASSWORD) => this.post('sign-in', { email, password });
  secondFactor = (code: string) => this.post('second-factor', { code });
  signOut = () => this.post('sign-out');
  session = () => this.request('GET', '/dashboard/auth/session');

  graphql = (query: string, variables: Record<string, unknown> = {}, options: { headers?: Record<string, string>; csrf?: string | null } = {}) =>
    this.request('POST', '/graphql', { body: { query, variables }, ...options });

  /** A GraphQL answer's data, failing the test on any error. */
  async data(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const answer = await this.graphql(query, variables);
    expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
    return answer.body.data;
  }

  /** graphql (with this session's cookie and CSRF header) for a typed document: its data typed. */
  async graphqlTyped<Result, Variables>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
    options: { headers?: Record<string, string>; csrf?: string | null } = {},
  ): Promise<{ status: number; body: TypedBody<Result>; headers: Headers }> {
    return this.graphql(print(document), variables as Record<string, unknown>, options);
  }

  /** data (must succeed) for a typed document. */
  async dataTyped<Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
    return this.data(print(document), variables as Record<string, unknown>);
  }
}

export const newEmail = (name = 'member'): string => `${name}.${randomBytes(4).toString('hex')}@shop.example.sn`;

/** An operator's invitation (GraphQL inviteMember): the link and its token. */
export async function invite(
  gateway: TestGateway,
  organizationId: string,
  email: string,
  role?: MerchantRole,
): Promise<{ link: string; token: string; role: MerchantRole }> {
  const answer = await graphqlTyped(gateway, InviteMemberDocument, { organizationId, email, role }, gateway.adminToken);
  expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
  const { link, role: given } = answer.body.data!.inviteMember;
  return { link, token: link.split('#')[1]!, role: given };
}

/** Invited and accepted: a member who can sign in with PASSWORD. */
export async function member(
  gateway: TestGateway,
  organizationId: string,
  role?: MerchantRole,
  email = newEmail(role),
): Promise<{ email: string; role: MerchantRole }> {
  const { token, role: given } = await invite(gateway, organizationId, email, role);
  const accepted = await new DashboardBrowser(gateway).post('accept-invitation', { token, password: PASSWORD });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return { email, role: given };
}

/** A browser signed in as a new member of `role` (an owner exists first: the first member is always one). */
export async function signedIn(gateway: TestGateway, organizationId: string, role: MerchantRole): Promise<DashboardBrowser & { email: string }> {
  const { email } = await member(gateway, organizationId, role);
  const browser = new DashboardBrowser(gateway);
  const answer = await browser.signIn(email);
  expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ next: 'done' });
  return Object.assign(browser, { email });
}

/**
 * A TOTP code the server accepts now and has not seen: the next 30-second step's (one step of
 * clock drift is allowed either way), later than the current step enrolment used.
 */
export const nextStepTotp = (secret: string): string => totpCodeAt(secret, new Date(Date.now() + TOTP_PERIOD_SECONDS * 1000));

/** Enrols the signed-in browser in two-factor sign-in: its secret and recovery codes. */
export async function enrol(browser: DashboardBrowser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { startTwoFactorEnrolment } = await browser.dataTyped(StartTwoFactorEnrolmentDocument, {});
  const code = totpCodeAt(startTwoFactorEnrolment.secret, new Date());
  const { confirmTwoFactorEnrolment } = await browser.dataTyped(ConfirmTwoFactorEnrolmentDocument, { code });
  return { secret: startTwoFactorEnrolment.secret, recoveryCodes: confirmTwoFactorEnrolment };
}
