/** The organisations' SQL: organisations with their accounts, their API keys, and the kill switches. */
import type { Account, ApiKey, Organization, Prisma } from '../../generated/prisma/client.js';
import type { AccountName, ApiScope, OrganizationStatus } from '../../generated/prisma/enums.js';
import type { Db } from '../context.js';
import { escapeLike } from '../text.js';

export type OrganizationRecord = Organization & { accounts: Account[] };

const withAccounts = { accounts: { orderBy: { name: 'asc' as const } } };

export interface NewAccount {
  name: AccountName;
  type: string;
}

export type NewOrganization = Pick<Organization, 'name' | 'verified' | 'escrowEnabled' | 'payoutEnabled' | 'allowedMethods' | 'businessSector'>;

/** The organisation and its accounts, in one database transaction. */
export function insertOrganization(db: Pick<Db, 'organization'>, organization: NewOrganization, accounts: readonly NewAccount[]): Promise<OrganizationRecord> {
  return db.organization.create({
    data: { ...organization, accounts: { create: accounts.map((account) => ({ ...account })) } },
    include: withAccounts,
  });
}

/** The organisation `id` (a UUID) with its accounts; null when there is none. */
export function readOrganization(db: Pick<Db, 'organization'>, id: string): Promise<OrganizationRecord | null> {
  return db.organization.findUnique({ where: { id }, include: withAccounts });
}

/** Changes to an organisation: a field left undefined is left as it is. */
export type OrganizationChanges = Partial<
  Pick<
    Organization,
    | 'name'
    | 'status'
    | 'verified'
    | 'escrowEnabled'
    | 'payoutEnabled'
    | 'allowedMethods'
    | 'businessSector'
    | 'minTransactionAmount'
    | 'maxTransactionAmount'
    | 'maxPayoutAmount'
  >
>;

export function changeOrganization(db: Pick<Db, 'organization'>, id: string, changes: OrganizationChanges): Promise<OrganizationRecord> {
  return db.organization.update({ where: { id }, data: changes, include: withAccounts });
}

export interface OrganizationFilter {
  status?: OrganizationStatus;
  /** Part of the name, case-insensitive. */
  nameContains?: string;
}

function organizationsWhere(filter: OrganizationFilter): Prisma.OrganizationWhereInput {
  return {
    ...(filter.status && { status: filter.status }),
    ...(filter.nameContains && { name: { contains: escapeLike(filter.nameContains), mode: 'insensitive' } }),
  };
}

/** One page of organisations with their accounts, newest first. */
export function listOrganizationPage(db: Pick<Db, 'organization'>, filter: OrganizationFilter, skip: number, take: number): Promise<OrganizationRecord[]> {
  // The id breaks ties between organisations created in the same millisecond, so pages never
  // repeat or skip one.
  return db.organization.findMany({ where: organizationsWhere(filter), include: withAccounts, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take });
}

export function countOrganizations(db: Pick<Db, 'organization'>, filter: OrganizationFilter): Promise<number> {
  return db.organization.count({ where: organizationsWhere(filter) });
}

export function countAccounts(db: Pick<Db, 'account'>, organizationId: string): Promise<number> {
  return db.account.count({ where: { organizationId } });
}

/** Creates those of `accounts` the organisation lacks (concurrent callers are harmless: unique per organisation and name). */
export async function insertMissingAccounts(db: Pick<Db, 'account'>, organizationId: string, accounts: readonly NewAccount[]): Promise<void> {
  await db.account.createMany({ data: accounts.map((account) => ({ ...account, organizationId })), skipDuplicates: true });
}

/** What an operator or the organisation's users may see of a key: everything but its digest. */
const API_KEY_METADATA = {
  id: true,
  organizationId: true,
  scope: true,
  prefix: true,
  revokedAt: true,
  lastUsedAt: true,
  createdAt: true,
} as const satisfies Partial<Record<keyof ApiKey, true>>;

/** A key as operators see it: what `API_KEY_METADATA` selects. */
export type ApiKeyMetadata = Pick<ApiKey, keyof typeof API_KEY_METADATA>;

export interface NewApiKey {
  organizationId: string;
  scope: ApiScope;
  /** The first characters of the secret, to recognise the key in lists. */
  prefix: string;
  keyDigest: string;
}

export function insertApiKey(db: Pick<Db, 'apiKey'>, key: NewApiKey): Promise<ApiKey> {
  return db.apiKey.create({ data: key });
}

/** The key `id` (a UUID); null when there is none. */
export function readApiKey(db: Pick<Db, 'apiKey'>, id: string): Promise<ApiKey | null> {
  return db.apiKey.findUnique({ where: { id } });
}

/** The key `id` (a UUID) if it belongs to `organizationId`; null otherwise. */
export function readOrganizationApiKey(db: Pick<Db, 'apiKey'>, organizationId: string, id: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({ where: { id, organizationId } });
}

export function markApiKeyRevoked(db: Pick<Db, 'apiKey'>, id: string, revokedAt: Date): Promise<ApiKey> {
  return db.apiKey.update({ where: { id }, data: { revokedAt } });
}

/** An organisation's keys, newest first. */
export function listApiKeyMetadata(db: Pick<Db, 'apiKey'>, organizationId: string, limit: number): Promise<ApiKeyMetadata[]> {
  return db.apiKey.findMany({
    where: { organizationId },
    // The digest is not even read: what is never loaded cannot leak through a later field.
    select: API_KEY_METADATA,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

/** The switches that have a row (a switch without one is on), in one statement. */
export function readSwitchRows(db: Pick<Db, 'switch'>): Promise<{ name: string; on: boolean }[]> {
  return db.switch.findMany();
}

/** Sets a switch; answers its state as stored. */
export async function saveSwitch(db: Pick<Db, 'switch'>, name: string, on: boolean): Promise<boolean> {
  const row = await db.switch.upsert({ where: { name }, create: { name, on }, update: { on } });
  return row.on;
}
