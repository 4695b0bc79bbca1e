/**
 * The SQL of dashboard users: users, invitations, sessions and recovery codes. One function per
 * effect; every function that is part of a change takes the transaction it runs in.
 */
import type { DashboardSession, MerchantInvitation, MerchantUser, Organization } from '../../generated/prisma/client.js';
import type { MerchantRole } from '../../generated/prisma/enums.js';
import type { OrganizationRecord } from '../organizations/store.js';
import type { Db, DbTransaction } from '../ports.js';

type Tx = Db | DbTransaction;

export type UserWithOrganization = MerchantUser & { organization: Organization };
/** A member as the API shows it: with its organisation and that organisation's accounts (the GraphQL Organization). */
export type MemberRecord = MerchantUser & { organization: OrganizationRecord };
const WITH_ORGANIZATION_RECORD = { organization: { include: { accounts: { orderBy: { name: 'asc' as const } } } } };
export type SessionWithUser = DashboardSession & { user: UserWithOrganization };

// Users.

export const readActiveUserByEmail = (db: Tx, email: string): Promise<UserWithOrganization | null> =>
  db.merchantUser.findFirst({ where: { email, removedAt: null }, include: { organization: true } });

export const readUserByEmail = (db: Tx, email: string): Promise<MerchantUser | null> => db.merchantUser.findUnique({ where: { email } });

export const readActiveUser = (db: Tx, id: string): Promise<UserWithOrganization | null> =>
  db.merchantUser.findFirst({ where: { id, removedAt: null }, include: { organization: true } });

export const readActiveMember = (db: Tx, organizationId: string, id: string): Promise<MerchantUser | null> =>
  db.merchantUser.findFirst({ where: { id, organizationId, removedAt: null } });

export const listActiveMembers = (db: Tx, organizationId: string, max: number): Promise<MemberRecord[]> =>
  db.merchantUser.findMany({
    where: { organizationId, removedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: max,
    include: WITH_ORGANIZATION_RECORD,
  });

export const readMember = (db: Tx, id: string): Promise<MemberRecord | null> =>
  db.merchantUser.findUnique({ where: { id }, include: WITH_ORGANIZATION_RECORD });

export const countActiveMembers = (db: Tx, organizationId: string): Promise<number> => db.merchantUser.count({ where: { organizationId, removedAt: null } });

/**
 * The organisation's owners, locked until the transaction ends: two owners demoting or removing
 * each other at once are decided one after the other, so the last owner cannot be lost.
 */
export async function lockOwners(tx: DbTransaction, organizationId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "MerchantUser" WHERE "organizationId" = ${organizationId}::uuid AND role = 'owner' AND "removedAt" IS NULL FOR UPDATE`;
  return rows.map((row) => row.id);
}

/** A new user, or a removed one's row given a new life (the email is unique across every row). */
export function upsertUserFromInvitation(tx: DbTransaction, invitation: MerchantInvitation, passwordHash: string, now: Date): Promise<MerchantUser> {
  const fresh = { organizationId: invitation.organizationId, role: invitation.role, passwordHash, createdAt: now };
  const cleared = { totpSecretEncrypted: null, totpPendingEncrypted: null, twoFactorEnabled: false, totpLastStep: null, removedAt: null };
  return tx.merchantUser.upsert({ where: { email: invitation.email }, create: { email: invitation.email, ...fresh }, update: { ...fresh, ...cleared } });
}

export const updateRole = (tx: Tx, id: string, role: MerchantRole): Promise<MemberRecord> =>
  tx.merchantUser.update({ where: { id }, data: { role }, include: WITH_ORGANIZATION_RECORD });

export const markRemoved = (tx: Tx, id: string, now: Date): Promise<MemberRecord> =>
  tx.merchantUser.update({ where: { id }, data: { removedAt: now }, include: WITH_ORGANIZATION_RECORD });

export const storePendingTotp = (db: Tx, id: string, sealed: string): Promise<MerchantUser> =>
  db.merchantUser.update({ where: { id }, data: { totpPendingEncrypted: sealed } });

/** Stores a pending secret only when none is pending (false: another request stored one first). */
export const storeFirstPendingTotp = async (db: Tx, id: string, sealed: string): Promise<boolean> =>
  (await db.merchantUser.updateMany({ where: { id, totpPendingEncrypted: null }, data: { totpPendingEncrypted: sealed } })).count === 1;

export const enableTotp = (tx: Tx, id: string, sealed: string, step: bigint): Promise<MerchantUser> =>
  tx.merchantUser.update({ where: { id }, data: { totpSecretEncrypted: sealed, totpPendingEncrypted: null, twoFactorEnabled: true, totpLastStep: step } });

export const disableTotp = (tx: Tx, id: string): Promise<MerchantUser> =>
  tx.merchantUser.update({ where: { id }, data: { totpSecretEncrypted: null, totpPendingEncrypted: null, twoFactorEnabled: false, totpLastStep: null } });

/**
 * Accepts TOTP step `step` for the user unless a step as late was accepted already: one
 * conditional UPDATE, so two requests with the same code cannot both succeed.
 */
export async function claimTotpStep(db: Tx, id: string, step: bigint): Promise<boolean> {
  const claimed = await db.merchantUser.updateMany({
    where: { id, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
    data: { totpLastStep: step },
  });
  return claimed.count === 1;
}

// Invitations.

export const insertInvitation = (
  tx: Tx,
  invitation: { tokenDigest: string; organizationId: string; email: string; role: MerchantRole; expiresAt: Date },
): Promise<MerchantInvitation> => tx.merchantInvitation.create({ data: invitation });

export const readUsableInvitation = (db: Tx, tokenDigest: string, now: Date): Promise<MerchantInvitation | null> =>
  db.merchantInvitation.findFirst({ where: { tokenDigest, usedAt: null, expiresAt: { gt: now } } });

/** Marks the invitation used unless it already is: one conditional UPDATE, so a link works once even when clicked twice at once. */
export async function claimInvitation(tx: DbTransaction, id: string, now: Date): Promise<boolean> {
  const claimed = await tx.merchantInvitation.updateMany({ where: { id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return claimed.count === 1;
}

export const countPendingInvitations = (db: Tx, organizationId: string, now: Date): Promise<number> =>
  db.merchantInvitation.count({ where: { organizationId, usedAt: null, expiresAt: { gt: now } } });

// Sessions.

export const insertSession = (
  tx: Tx,
  session: { tokenDigest: string; userId: string; csrfToken: string; secondFactorDone: boolean; createdAt: Date; expiresAt: Date },
): Promise<DashboardSession> => tx.dashboardSession.create({ data: { ...session, lastSeenAt: session.createdAt } });

export const readSessionByDigest = (db: Tx, tokenDigest: string): Promise<SessionWithUser | null> =>
  db.dashboardSession.findUnique({ where: { tokenDigest }, include: { user: { include: { organization: true } } } });

export async function deleteSession(tx: Tx, id: string): Promise<void> {
  await tx.dashboardSession.deleteMany({ where: { id } });
}

export async function deleteSessionsOf(tx: Tx, userId: string): Promise<void> {
  await tx.dashboardSession.deleteMany({ where: { userId } });
}

export async function touchSession(db: Tx, id: string, now: Date): Promise<void> {
  await db.dashboardSession.updateMany({ where: { id }, data: { lastSeenAt: now } });
}

/** Sessions past their absolute expiry, removed in bounded batches (sign-in does it now and then). */
export async function deleteExpiredSessions(db: Tx, now: Date, max: number): Promise<void> {
  await db.$executeRaw`DELETE FROM "DashboardSession" WHERE id IN (SELECT id FROM "DashboardSession" WHERE "expiresAt" < ${now} LIMIT ${max})`;
}

// Recovery codes.

export async function replaceRecoveryCodes(tx: Tx, userId: string, digests: string[]): Promise<void> {
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({ data: digests.map((digest) => ({ userId, digest })) });
}

export async function deleteRecoveryCodes(tx: Tx, userId: string): Promise<void> {
  await tx.recoveryCode.deleteMany({ where: { userId } });
}

/** Uses the code unless it was used already: one conditional UPDATE (single use, even at once). */
export async function claimRecoveryCode(tx: Tx, userId: string, digest: string, now: Date): Promise<boolean> {
  const claimed = await tx.recoveryCode.updateMany({ where: { userId, digest, usedAt: null }, data: { usedAt: now } });
  return claimed.count === 1;
}

// Organisations.

export const setRequireTwoFactor = (tx: Tx, organizationId: string, required: boolean): Promise<OrganizationRecord> =>
  tx.organization.update({ where: { id: organizationId }, data: { requireTwoFactor: required }, include: { accounts: { orderBy: { name: 'asc' } } } });

export const readOrganization = (db: Tx, organizationId: string): Promise<Organization | null> => db.organization.findUnique({ where: { id: organizationId } });

export async function readSessionCsrf(db: Tx, id: string): Promise<string | null> {
  return (await db.dashboardSession.findUnique({ where: { id }, select: { csrfToken: true } }))?.csrfToken ?? null;
}
