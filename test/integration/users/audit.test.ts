/**
 * The audit log: a row is written with each change, in the change's transaction (rolled back with
 * it), read by the owner newest first, by pages, filtered by action.
 */
import { describe, expect, it } from 'vitest';
import { recordAuditEvent } from '../../../src/domain/audit/recordAuditEvent.js';
import { DashboardBrowser, newEmail, signedIn } from '../../support/dashboard.js';
import { useGateway } from '../../support/gateway.js';
import { AuditLogDocument as LOG, ChangeMemberRoleDocument, InviteMemberDocument, MeIdDocument } from '../../support/graphql/generated.js';

const gateway = useGateway();

describe('the audit log', () => {
  it('records the team’s changes and sign-ins, newest first, with who did them', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const email = newEmail('moussa');
    await owner.dataTyped(InviteMemberDocument, { email, role: 'developer' });
    expect((await new DashboardBrowser(gateway).signIn(owner.email, 'not my password at all')).status).toBe(401);

    const { auditEvents } = await owner.dataTyped(LOG, { first: 10 });
    expect(auditEvents.nodes.slice(0, 2)).toEqual([
      {
        action: 'user.sign_in_failed',
        actorKind: 'anonymous',
        actorLabel: 'not signed in',
        target: owner.email,
        details: expect.stringContaining('"step":"password"'),
      },
      { action: 'member.invited', actorKind: 'merchantUser', actorLabel: owner.email, target: email, details: '{"role":"developer"}' },
    ]);
    expect(auditEvents.nodes.map((event: { action: string }) => event.action)).toContain('user.signed_in');
    // Operators' invitations are recorded with who they were.
    expect(auditEvents.nodes.at(-1)).toMatchObject({ action: 'member.invited', actorKind: 'operator', actorLabel: 'operator (admin)' });

    const page = await owner.dataTyped(LOG, { first: 1 });
    expect(page.auditEvents.pageInfo.hasNextPage).toBe(true);
    const next = await owner.dataTyped(LOG, { first: 1, after: page.auditEvents.pageInfo.endCursor });
    expect(next.auditEvents.nodes[0]!.action).toBe('member.invited');
    expect((await owner.dataTyped(LOG, { action: 'member.invited' })).auditEvents.nodes).toHaveLength(2);
  });

  it('is written in the change’s transaction: a refused change leaves no row, a rolled-back one neither', async () => {
    const organization = await gateway.createOrganization({});
    const owner = await signedIn(gateway, organization.id, 'owner');
    const { me } = await owner.dataTyped(MeIdDocument, {});
    expect((await owner.graphqlTyped(ChangeMemberRoleDocument, { role: 'viewer', id: me.id })).body.errors[0].extensions.code).toBe('LAST_OWNER');
    const count = (action: string) => gateway.ctx.db.auditEvent.count({ where: { organizationId: organization.id, action } });
    expect(await count('member.role_changed')).toBe(0);

    await expect(
      gateway.ctx.db.$transaction(async (tx) => {
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          actor: gateway.operator,
          action: 'business_profile.updated',
          details: { name: 'rolled back' },
        });
        expect(await tx.auditEvent.count({ where: { organizationId: organization.id, action: 'business_profile.updated' } })).toBe(1);
        throw new Error('the change failed after its audit row');
      }),
    ).rejects.toThrow('the change failed');
    expect(await count('business_profile.updated')).toBe(0);
  });

  it('belongs to its organisation: another owner cannot read it', async () => {
    const organization = await gateway.createOrganization({});
    const other = await signedIn(gateway, (await gateway.createOrganization({})).id, 'owner');
    const answer = await other.graphqlTyped(LOG, { org: organization.id });
    expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
