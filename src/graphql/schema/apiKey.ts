/** API keys, issued, listed and revoked by operators. The secret appears once, in createApiKey. */
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/operations/index.js';
import type { ApiKeyMetadata } from '../../domain/operations/listApiKeys.js';
import { builder } from '../builder.js';
import { ApiScopeEnum } from './enums.js';

// Typed by the metadata, not the database row: this type cannot reach a key's digest, whatever
// an operation hands it (a full row from createApiKey is a superset and fits).
export const ApiKeyRef = builder.objectRef<ApiKeyMetadata>('ApiKey').implement({
  description: 'An API key of one organisation: metadata only (the key itself is shown once, by createApiKey).',
  fields: (t) => ({
    id: t.exposeID('id'),
    organizationId: t.exposeID('organizationId'),
    scope: t.field({ type: ApiScopeEnum, description: 'What the key may do', resolve: (key) => key.scope }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it' }),
    revoked: t.boolean({ description: 'True once revoked: the key is refused from then on', resolve: (key) => key.revokedAt !== null }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When it was revoked; null while it works' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was issued' }),
  }),
});

const IssuedApiKeyRef = builder.objectRef<Awaited<ReturnType<typeof createApiKey>>>('IssuedApiKey').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, resolve: (issued) => issued.apiKey }),
    key: t.string({ description: 'The full key. Shown only here: store it now.', resolve: (issued) => issued.secret }),
  }),
});

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKeyRef],
    description: 'Operators (any role): the organisation’s API keys, newest first, at most the 100 most recent. Metadata only.',
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => listApiKeys(ctx.gateway, ctx.caller, String(args.organizationId)),
  }),
);

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
