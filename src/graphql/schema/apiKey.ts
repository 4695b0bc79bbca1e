/** API keys, issued and revoked by operators. The secret appears once, in createApiKey. */
import { createApiKey, revokeApiKey } from '../../domain/operations/index.js';
import { builder } from '../builder.js';
import { ApiScopeEnum } from './enums.js';

export const ApiKeyRef = builder.prismaObject('ApiKey', {
  fields: (t) => ({
    id: t.exposeID('id'),
    organizationId: t.exposeID('organizationId'),
    scope: t.field({ type: ApiScopeEnum, resolve: (key) => key.scope }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it' }),
    revoked: t.boolean({ resolve: (key) => key.revokedAt !== null }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const IssuedApiKeyRef = builder.objectRef<Awaited<ReturnType<typeof createApiKey>>>('IssuedApiKey').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, resolve: (issued) => issued.apiKey }),
    key: t.string({ description: 'The full key. Shown only here: store it now.', resolve: (issued) => issued.secret }),
  }),
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: IssuedApiKeyRef,
    description: 'Operators (admin): issues an API key with one scope.',
    args: { organizationId: t.arg.id({ required: true }), scope: t.arg({ type: ApiScopeEnum, required: true }) },
    resolve: (_root, args, ctx) => createApiKey(ctx.gateway, ctx.caller, String(args.organizationId), args.scope),
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.field({
    type: ApiKeyRef,
    description: 'Operators (admin): revokes an API key at once.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeApiKey(ctx.gateway, ctx.caller, String(args.id)),
  }),
);
