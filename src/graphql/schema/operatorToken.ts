/**
 * Operator tokens: issued, listed and revoked by operators (who may do which is the access
 * policy's: admin issues and revokes; every role lists). The token appears once, in
 * createOperatorToken; everything else shows metadata only.
 */
import { OPERATOR_ROLES } from '../../domain/access/createOperatorToken.js';
import type { RevokedOperatorToken } from '../../domain/access/revokeOperatorToken.js';
import type { OperatorTokenMetadata } from '../../domain/access/store.js';
import { createOperatorToken, listOperatorTokens, revokeOperatorToken } from '../../domain/operations.js';
import { builder } from '../builder.js';

const OperatorRoleEnum = builder.enumType('OperatorRole', {
  description:
    'What an operator token may do: admin everything; analyst reads every organisation and changes nothing; support reads, reviews payouts, releases escrow and redelivers webhooks.',
  values: OPERATOR_ROLES,
});

// Typed by the metadata, not the database row: this type cannot reach a token's digest. Only an
// operator reads it (the type's scope: a merchant key meeting one anywhere is refused).
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of an operator token's metadata, shared by OperatorToken and RevokedOperatorToken. */
const operatorTokenFields = <Token extends OperatorTokenMetadata>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Token>) => ({
  id: t.id({ resolve: (token) => token.id }),
  role: t.field({ type: OperatorRoleEnum, resolve: (token) => token.role }),
  prefix: t.string({ description: 'The first characters of the token, to recognise it', resolve: (token) => token.prefix }),
  revoked: t.boolean({ description: 'True once revoked: the token is refused from then on', resolve: (token) => token.revokedAt !== null }),
  revokedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it was revoked; null while it works', resolve: (token) => token.revokedAt }),
  createdAt: t.field({ type: 'DateTime', description: 'When it was issued', resolve: (token) => token.createdAt }),
});

const OperatorTokenRef = builder.objectRef<OperatorTokenMetadata>('OperatorToken').implement({
  description:
    'An issued operator token: metadata only (the token itself is shown once, by createOperatorToken). The bootstrap GATEWAY_ADMIN_TOKEN is not one.',
  authScopes: { run: 'listOperatorTokens' },
  fields: (t) => operatorTokenFields(t),
});

const RevokedOperatorTokenRef = builder.objectRef<RevokedOperatorToken>('RevokedOperatorToken').implement({
  description: 'The answer of revokeOperatorToken: the token (now revoked) and whether every instance was told.',
  authScopes: { run: 'revokeOperatorToken' },
  fields: (t) => ({
    ...operatorTokenFields(t),
    propagationConfirmed: t.boolean({
      description:
        'True: every gateway instance refuses the token from now on. False: the token is revoked in the database, but the ' +
        'message to the other instances could not be confirmed (Redis did not answer within 1 s); instances cut off from ' +
        'Redis stop trusting their caches within 2 s and the message is sent again in the background. Revoke again to confirm.',
      resolve: (revoked) => revoked.propagationConfirmed,
    }),
  }),
});

const IssuedOperatorTokenRef = builder.objectRef<Awaited<ReturnType<typeof createOperatorToken>>>('IssuedOperatorToken').implement({
  description: 'The answer of createOperatorToken: the token’s metadata and the token itself.',
  fields: (t) => ({
    operatorToken: t.field({ type: OperatorTokenRef, resolve: (issued) => issued.operatorToken }),
    token: t.string({
      description: 'The full token (`gw_op_...`), for `Authorization: Bearer`. Shown only here: store it now.',
      authScopes: { run: 'createOperatorToken' },
      resolve: (issued) => issued.secret,
    }),
  }),
});

builder.queryField('operatorTokens', (t) =>
  t.field({
    type: [OperatorTokenRef],
    description:
      'Operators (any role): the issued operator tokens, those in use first (newest first), then the most recently revoked; at most 200. Metadata only.',
    authScopes: { run: 'listOperatorTokens' },
    resolve: (_root, _args, ctx) => listOperatorTokens(ctx.gateway, ctx.caller),
  }),
);

builder.mutationField('createOperatorToken', (t) =>
  t.field({
    type: IssuedOperatorTokenRef,
    description: 'Operators (admin): issues an operator token with one role. At most 100 may be in use at once.',
    authScopes: { run: 'createOperatorToken' },
    args: { role: t.arg({ type: OperatorRoleEnum, required: true }) },
    resolve: (_root, args, ctx) => createOperatorToken(ctx.gateway, ctx.caller, args.role),
  }),
);

builder.mutationField('revokeOperatorToken', (t) =>
  t.field({
    type: RevokedOperatorTokenRef,
    description:
      'Operators (admin): revokes an issued operator token. Answers once every instance refuses it, or says it could not confirm that (propagationConfirmed). Revoking again answers the first revocation.',
    authScopes: { run: 'revokeOperatorToken' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeOperatorToken(ctx.gateway, ctx.caller, String(args.id)),
  }),
);
