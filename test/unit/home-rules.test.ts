/** Issue 30's rules that need no database: a phone in any writing, paid volume, capabilities and why not. */
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from '../../src/domain/home/capabilities.js';
import { isPaidVolume } from '../../src/domain/home/paidVolume.js';
import { phoneSearchCandidates } from '../../src/domain/phones.js';
import { SWITCH_NAMES, type SwitchName } from '../../src/domain/organizations/switches.js';

describe('phoneSearchCandidates', () => {
  it('reads every common writing of a Senegalese number as its international form', () => {
    for (const writing of [
      '+221 77 123 45 67',
      '221771234567',
      '771234567',
      '77 123 45 67',
      '00221 77 123 45 67',
      '77.123.45.67',
      '77-123-45-67',
      '(+221) 77 123 45 67',
      ' 77\u00a0123\u00a045\u00a067 ',
    ])
      expect(phoneSearchCandidates(writing), writing).toContain('+221771234567');
  });

  it('reads a Côte d’Ivoire number written nationally (ten digits, its leading 0 kept)', () => {
    expect(phoneSearchCandidates('07 01 02 03 04')).toContain('+2250701020304');
  });

  it('gives exact international numbers only (E.164), never a pattern', () => {
    for (const candidate of phoneSearchCandidates('77 123 45 67')!) expect(candidate).toMatch(/^\+[1-9]\d{7,14}$/);
  });

  it('is null for what is not a whole phone number: names, ids, a few digits (searched as text)', () => {
    for (const text of ['Awa Diop', '8b9d174f-f611-4480', '12345', '771234', '', '+', '77 12', 'ord 771234567', '1234567890123456789'])
      expect(phoneSearchCandidates(text), text).toBeNull();
  });
});

describe('paid volume', () => {
  it('counts paid and escrow-held payments, never refunded, pending or cancelled ones', () => {
    expect(['paid', 'paid_and_blocked', 'refunded', 'pending', 'cancelled', null].map(isPaidVolume)).toEqual([true, true, false, false, false, false]);
  });
});

describe('capabilitiesOf', () => {
  const allOn = new Map(SWITCH_NAMES.map((name) => [name, true])) as Map<SwitchName, boolean>;
  const organization = { status: 'active' as const, payoutEnabled: true, allowedMethods: ['wave' as const, 'orange_money' as const], businessSector: 'retail' };
  const blocked = (states: ReturnType<typeof capabilitiesOf>) => Object.fromEntries(states.map((state) => [state.capability, state.blockedBy]));

  it('everything usable for an active, enabled organisation with a profile', () => {
    expect(blocked(capabilitiesOf(organization, allOn))).toEqual({ transactions: null, payouts: null, wave: null, orange_money: null });
  });

  it('says why each is off, the gateway’s switch first (nothing the merchant can do), then the organisation’s settings', () => {
    const switches = new Map(allOn).set('wave', false).set('payouts', false);
    expect(blocked(capabilitiesOf({ ...organization, payoutEnabled: false, allowedMethods: ['wave'] }, switches))).toEqual({
      transactions: null,
      payouts: 'paused_by_gateway',
      wave: 'paused_by_gateway',
      orange_money: 'not_enabled',
    });
    expect(blocked(capabilitiesOf({ ...organization, payoutEnabled: false }, allOn)).payouts).toBe('not_enabled');
    expect(blocked(capabilitiesOf({ ...organization, businessSector: null }, allOn))).toMatchObject({
      transactions: 'business_profile_incomplete',
      payouts: 'business_profile_incomplete',
    });
    expect(blocked(capabilitiesOf({ ...organization, status: 'blocked' }, allOn)).transactions).toBe('organization_inactive');
  });

  it('a method whose provider is down needs attention, unless the organisation does not use it anyway', () => {
    const down = new Set(['wave' as const]);
    expect(blocked(capabilitiesOf(organization, allOn, down))).toEqual({ transactions: null, payouts: null, wave: 'provider_down', orange_money: null });
    expect(blocked(capabilitiesOf({ ...organization, allowedMethods: ['orange_money'] }, allOn, down)).wave).toBe('not_enabled');
    expect(blocked(capabilitiesOf(organization, new Map(allOn).set('wave', false), down)).wave).toBe('paused_by_gateway');
  });
});
