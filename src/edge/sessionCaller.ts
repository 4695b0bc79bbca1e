/**
 * A dashboard session's caller, for the requests that act or read with it beyond the session
 * endpoints (/graphql, the payout batch CSV upload): the cookie's session, used only with its CSRF
 * token in X-CSRF-Token (and, when the browser names one, from the API's own Origin), so a page
 * elsewhere cannot act, or read, with the user's cookie.
 */
import type { Caller } from '../domain/access/auth.js';
import type { GatewayContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { authenticateSession } from '../domain/users/sessions.js';
import { sameCsrfToken, sameOrigin } from './sessionCookie.js';

export async function sessionCaller(
  ctx: GatewayContext,
  token: string,
  request: { origin: string | string[] | undefined; csrfToken: string | string[] | undefined },
): Promise<Caller> {
  if (!sameOrigin(request.origin, ctx.settings.publicUrl)) throw new DomainError('cross_origin_refused');
  const session = await authenticateSession(ctx, token);
  if (!sameCsrfToken(request.csrfToken, session.csrfToken)) throw new DomainError('csrf_refused');
  return session.caller;
}
