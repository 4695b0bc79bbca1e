/**
 * API keys, issued, listed and revoked by operators (naming the organisation) and by the
 * organisation's own dashboard users (their organisation). The secret appears once, in createApiKey.
 */
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/operations.js';
import type { ApiKeyMetadata } from '../../domain/organizations/store.js';
import { builder } from '../builder.js';
import { organizationIdOf } from './arguments.js';
import { ApiScopeEnum } from './enums.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of an API key's metadata, shared by ApiKey and RevokedApiKey. */
const apiKeyFields = <Key extends ApiKeyMetadata>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Key>) => ({
  id: t.id({ resolve: (key) => key.id }),
  organizationId: t.id({ resolve: (key) => key.organizationId }),
  scope: t.field({ type: ApiScopeEnum, description: 'What the key may do', resolve: (key) => key.scope }),
  prefix: t.string({ description: 'The first characters of the key, to recognise it', resolve: (key) => key.prefix }),
  revoked: t.boolean({ description: 'True once revoked: the key is refused from then on', resolve: (key) => key.revokedAt !== null }),
  revokedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it was revoked; null while it works', resolve: (key) => key.revokedAt }),
  createdAt: t.field({ type: 'DateTime', description: 'When it was issued', resolve: (key) => key.createdAt }),
  lastUsedAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'When a request last authenticated with it, to the minute (recorded at most once a minute); null: never used',
    resolve: (key) => key.lastUsedAt,
  }),
});

// Selected as metadata, and typed so: this type cannot reach a key's digest, whatever an
// operation hands it (a full row from createApiKey is a superset and fits), and the plugin never
// loads it (Organization.apiKeys).
const ApiKeyRef = builder.prismaObject('ApiKey', {
  select: { id: true, organizationId: true, scope: true, prefix: true, revokedAt: true, lastUsedAt: true, createdAt: true } satisfies Record<
    keyof ApiKeyMetadata,
    true
  >,
  description: 'An API key of one organisation: metadata only (the key itself is shown once, by createApiKey).',
  // The shared metadata fields: each resolves from the selected row, which is an ApiKeyMetadata.
  fields: (t) => apiKeyFields(t as unknown as PothosSchemaTypes.ObjectFieldBuilder<Types, ApiKeyMetadata>),
});

const RevokedApiKeyRef = builder.objectRef<ApiKeyMetadata & { propagationConfirmed: boolean }>('RevokedApiKey').implement({
  description: 'The answer of revokeApiKey: the key (now revoked) and whether every instance was told.',
  fields: (t) => ({
    ...apiKeyFields(t),
    propagationConfirmed: t.boolean({
      description:
        'True: every gateway instance refuses the key from now on. False: the key is revoked in the database, but the ' +
        'message to the other instances could not be confirmed (Redis did not answer within 1 s); instances cut off from ' +
        'Redis stop trusting their caches within 2 s and the message is sent again in the background. Revoke again to confirm.',
      resolve: (revoked) => revoked.propagationConfirmed,
    }),
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
    description:
      'The organisation’s API keys, newest first, at most the 100 most recent. Metadata only. Operators name the organisation; dashboard users read their own.',
    authScopes: { run: 'listApiKeys' },
    args: { organizationId: t.arg.id({ description: 'Required for operators; a dashboard user’s own when omitted' }) },
    resolve: (_root, args, ctx) => listApiKeys(ctx.gateway, ctx.caller, organizationIdOf(args.organizationId)),
  }),
);

const ApiKeyFormatEnum = builder.enumType('ApiKeyFormat', {
  description: 'How a new key is spelled. Both are ordinary keys (same scopes, revocation).',
  values: {
    GATEWAY: { value: 'gateway', description: '`gw_sk_` + 43 base64url characters (the default).' },
    NABOO: {
      value: 'naboo',
      description: '`gw_sk_` + 43 base64url characters + `_naboo-v1`: the form the official NabooPay Python SDK 1.0.2 accepts (it prints only `v1` of it).',
    },
  } as const,
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: IssuedApiKeyRef,
    description: 'Issues an API key with one scope (operators: admin, naming the organisation; dashboard users: owner or developer, for their own).',
    authScopes: { run: 'createApiKey' },
    args: {
      organizationId: t.arg.id({ description: 'Required for operators; a dashboard user’s own when omitted' }),
      scope: t.arg({ type: ApiScopeEnum, required: true }),
      format: t.arg({ type: ApiKeyFormatEnum, required: false, description: 'GATEWAY when omitted.' }),
    },
    resolve: (_root, args, ctx) =>
      createApiKey(ctx.gateway, ctx.caller, organizationIdOf(args.organizationId), args.scope, { format: args.format ?? undefined }),
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.field({
    type: RevokedApiKeyRef,
    description:
      'Revokes an API key (operators: admin, any; dashboard users: owner or developer, their organisation’s only, another’s answers not found). ' +
      'Answers once every instance refuses it, or says it could not confirm that (propagationConfirmed).',
    authScopes: { run: 'revokeApiKey' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeApiKey(ctx.gateway, ctx.caller, String(args.id)),
  }),
);

/** As `apiKeys` answers them: newest first, the 100 most recent (a bounded answer). */
const MAX_LISTED_KEYS = 100;

// A relation, so a list of organisations reads every one's keys in one batched statement.
builder.prismaObjectField('Organization', 'apiKeys', (t) =>
  t.relation('apiKeys', {
    description: `The organisation’s API keys, newest first, at most the ${MAX_LISTED_KEYS} most recent. Metadata only (never the key nor its digest).`,
    authScopes: { run: 'listApiKeys' },
    query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: MAX_LISTED_KEYS },
  }),
);
