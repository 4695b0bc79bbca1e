/**
 * The dashboard's session endpoints (JSON, on the API origin): a thin adapter of src/domain/users.
 *
 * POST /dashboard/auth/sign-in            {email, password} -> {next, csrfToken} and a new session cookie
 * POST /dashboard/auth/second-factor      {code} -> {next: "done", csrfToken} and a new session cookie
 * POST /dashboard/auth/accept-invitation  {token, password} -> {next: "sign_in"}
 * POST /dashboard/auth/sign-out           -> 204, the cookie cleared
 * GET  /dashboard/auth/session            -> {user, csrfToken, twoFactorEnabled} | 401
 *
 * Every POST must be JSON (a cross-site form cannot send it without a preflight) from the API's own
 * Origin when the browser names one; those the session cookie authenticates (second-factor,
 * sign-out) also carry the session's X-CSRF-Token. A body meets the text rule every API body meets
 * (src/domain/text.ts: no NUL, no lone surrogate), else 400. Refusals are `{"error": "..."}` with the
 * catalogue's wording; a throttled sign-in is 429 with Retry-After.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { requestJsonProblem } from '../../domain/text.js';
import { acceptInvitation } from '../../domain/users/acceptInvitation.js';
import { authenticateSession, liveSession, type IssuedSession } from '../../domain/users/sessions.js';
import { signIn } from '../../domain/users/signIn.js';
import { signOut } from '../../domain/users/signOut.js';
import { SignInThrottledError } from '../../domain/users/throttle.js';
import { verifySecondFactor } from '../../domain/users/verifySecondFactor.js';
import { clearedSessionCookie, sameCsrfToken, sameOrigin, sessionCookie, sessionTokenOf } from '../../edge/sessionCookie.js';

const AUTH_ROOT = '/dashboard/auth';
/** An email, a 128-character password or an invitation token: a few hundred bytes. 4 kB refuses anything else before parsing. */
const AUTH_BODY_LIMIT_BYTES = 4 * 1024;

type Body = Record<string, unknown>;

export function registerDashboardAuth(app: FastifyInstance, ctx: GatewayContext): void {
  const publicUrl = () => ctx.settings.publicUrl;
  const post = (path: string, handle: (request: FastifyRequest, reply: FastifyReply, body: Body) => Promise<unknown>) =>
    app.post(`${AUTH_ROOT}/${path}`, { bodyLimit: AUTH_BODY_LIMIT_BYTES }, async (request, reply) => {
      if (!sameOrigin(request.headers.origin, publicUrl())) throw new DomainError('cross_origin_refused');
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json') throw new DomainError('unsupported_media_type');
      const body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as Body) : null;
      if (!body) throw new DomainError('invalid_request_body');
      // The text rule every API body meets (no NUL, no lone surrogate: PostgreSQL refuses them with a 500 otherwise).
      const problem = requestJsonProblem(body);
      if (problem) throw new DomainError('invalid_request_body', problem);
      try {
        return await handle(request, reply, body);
      } catch (error) {
        if (error instanceof SignInThrottledError) reply.header('retry-after', Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
        throw error;
      }
    });
  const startSession = (reply: FastifyReply, session: IssuedSession) =>
    reply.header('set-cookie', sessionCookie(session.token, session.expiresAt, ctx.clock.now(), publicUrl()));

  post('sign-in', async (request, reply, body) => {
    const { next, session } = await signIn(ctx, {
      email: body.email,
      password: body.password,
      clientAddress: request.ip,
      previousToken: sessionTokenOf(request.headers.cookie),
    });
    startSession(reply, session);
    return { next, csrfToken: session.csrfToken };
  });

  post('second-factor', async (request, reply, body) => {
    const token = sessionTokenOf(request.headers.cookie);
    const pending = await liveSession(ctx, token);
    if (!pending) throw new DomainError('not_signed_in');
    if (!sameCsrfToken(request.headers['x-csrf-token'], pending.csrfToken)) throw new DomainError('csrf_refused');
    const session = await verifySecondFactor(ctx, { sessionToken: token, code: body.code, clientAddress: request.ip });
    startSession(reply, session);
    return { next: 'done', csrfToken: session.csrfToken };
  });

  post('accept-invitation', async (_request, _reply, body) => {
    await acceptInvitation(ctx, { token: body.token, password: body.password });
    return { next: 'sign_in' };
  });

  post('sign-out', async (request, reply) => {
    const token = sessionTokenOf(request.headers.cookie);
    const session = await liveSession(ctx, token);
    if (session) {
      if (!sameCsrfToken(request.headers['x-csrf-token'], session.csrfToken)) throw new DomainError('csrf_refused');
      await signOut(ctx, token);
    }
    return reply.header('set-cookie', clearedSessionCookie(publicUrl())).code(204).send();
  });

  app.get(`${AUTH_ROOT}/session`, async (request) => {
    const { caller, csrfToken, twoFactorEnabled } = await authenticateSession(ctx, sessionTokenOf(request.headers.cookie));
    const { organization } = caller;
    return {
      user: { email: caller.email, role: caller.role, organizationId: organization.id, organizationName: organization.name },
      csrfToken,
      twoFactorEnabled,
      // True while the organisation's required two-factor sign-in is still to be set up: only enrolment works.
      mustEnrolTwoFactor: caller.mustEnrolTwoFactor ?? false,
    };
  });
}
