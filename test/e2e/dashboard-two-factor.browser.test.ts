/**
 * A member's own two-step verification in Settings, in a real browser (headless Chromium) on a
 * 360 px phone: new recovery codes (shown once, the old ones refused, a new one signs in once),
 * turning it off refused while the team requires it (the server's words shown), then turned off
 * (sign-in asks no code). The audit log shows each event's details as readable pairs. Screenshots
 * in test-artifacts/dashboard/ (git-ignored). The steps share one member and run in order.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { newPhonePage, saveScreenshot, useGatewayWithBrowser } from '../support/browser.js';
import { DashboardBrowser, PASSWORD, enrol, member, nextStepTotp } from '../support/dashboard.js';
import { SetTeamTwoFactorRequiredDocument } from '../support/graphql/generated.js';
import { graphqlTyped } from '../support/graphql/typed.js';

const session = useGatewayWithBrowser();
const state = {} as { organizationId: string; email: string; recoveryCodes: string[]; newCodes: string[]; phone: { context: BrowserContext; page: Page } };
afterAll(async () => {
  await state.phone?.context.close();
});

const url = (path: string) => `${session.gateway.url}/dashboard${path}`;
const shot = (page: Page, name: string) => saveScreenshot(page, 'dashboard', name);

async function heading(page: Page, text: string): Promise<void> {
  await page.locator('main h1', { hasText: text }).waitFor();
}

/** Signs in with the password; then the code, when given (the second step must be asked). */
async function signIn(page: Page, code?: string): Promise<void> {
  await page.goto(url('/sign-in'));
  await heading(page, 'Sign in');
  await page.getByLabel('Email').fill(state.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (code === undefined) return;
  await heading(page, 'Two-step verification');
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading(page, 'Sign in');
}

async function settings(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await heading(page, 'Settings');
}

async function fitsPhone(page: Page, name: string): Promise<void> {
  await shot(page, `${name}-360`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits 360 px`).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, `${name}-1280`);
  await page.setViewportSize({ width: 360, height: 740 });
}

async function requireTeamTwoFactor(required: boolean): Promise<void> {
  const answer = await graphqlTyped(session.gateway, SetTeamTwoFactorRequiredDocument, { org: state.organizationId, required }, session.gateway.adminToken);
  expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
}

describe('a member’s own two-step verification in Settings', () => {
  it('signs in with a code, then generates new recovery codes with a current one (shown once, with copy and download)', async () => {
    const organization = await session.gateway.createOrganization({ name: 'Boutique Thiès', verified: true });
    state.organizationId = organization.id;
    state.email = (await member(session.gateway, organization.id, 'owner')).email;
    const api = new DashboardBrowser(session.gateway);
    expect((await api.signIn(state.email)).body).toMatchObject({ next: 'done' });
    const enrolled = await enrol(api);
    state.recoveryCodes = enrolled.recoveryCodes;

    state.phone = await newPhonePage(session.browser, { locale: 'en-US' });
    const { page } = state.phone;
    await signIn(page, nextStepTotp(enrolled.secret));
    await heading(page, 'Home');
    await settings(page);
    await expect.poll(() => page.locator('main').innerText()).toContain('Two-step verification is on.');
    const regenerate = page.locator('[data-form="regenerate-recovery-codes"]');
    // A wrong code: refused, in words, and no code shown.
    await regenerate.getByLabel('Code').fill('000000');
    await regenerate.getByRole('button', { name: 'Generate new codes' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Invalid or already used two-factor code');
    expect(await page.locator('[data-recovery-codes]').count()).toBe(0);

    await regenerate.getByLabel('Code').fill(state.recoveryCodes[0]!);
    await regenerate.getByRole('button', { name: 'Generate new codes' }).click();
    await page.locator('[data-recovery-codes]').waitFor();
    state.newCodes = await page.locator('[data-recovery-codes] li').allInnerTexts();
    expect(state.newCodes).toHaveLength(10);
    expect(state.newCodes.filter((code) => state.recoveryCodes.includes(code))).toEqual([]);
    expect(await page.getByRole('alert').innerText()).toContain('Store these codes now');
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(1);
    const download = page.getByRole('link', { name: 'Download as text' });
    expect(await download.getAttribute('download')).toBe('recovery-codes.txt');
    expect(decodeURIComponent((await download.getAttribute('href'))!.split(',')[1]!)).toBe(`${state.newCodes.join('\n')}\n`);
    await fitsPhone(page, 'settings-recovery-codes');
  });

  it('refuses an old recovery code at sign-in; a new one signs in, once', async () => {
    const { page } = state.phone;
    await signOut(page);
    await signIn(page, state.recoveryCodes[1]!);
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    await page.getByLabel('Code').fill(state.newCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Home');
    await signOut(page);
    await signIn(page, state.newCodes[0]!);
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(page.url()).not.toBe(url('/'));
    await page.getByLabel('Code').fill(state.newCodes[1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Home');
  });

  it('shows the server’s refusal while the team requires two-step verification, then turns it off; sign-in asks no code', async () => {
    const { page } = state.phone;
    await requireTeamTwoFactor(true);
    await settings(page);
    const turnOff = page.locator('[data-form="turn-off-two-factor"]');
    await turnOff.getByLabel('Code').fill(state.newCodes[2]!);
    await turnOff.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Your organization requires two-factor sign-in: it cannot be disabled');
    await fitsPhone(page, 'settings-two-factor-refused');

    await requireTeamTwoFactor(false);
    await turnOff.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Two-step verification is off.');
    await page.getByRole('link', { name: 'Set up two-step verification' }).waitFor();
    expect(await page.locator('[data-form="turn-off-two-factor"]').count()).toBe(0);
    await fitsPhone(page, 'settings-two-factor-off');

    await signOut(page);
    await signIn(page);
    await heading(page, 'Home');
  });

  it('shows the audit log’s details as readable pairs, in English and French', async () => {
    const { page } = state.phone;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log', exact: true }).click();
    await heading(page, 'Audit log');
    const required = page.locator('tr[data-action="team.two_factor_required"] [data-details]').first();
    await required.waitFor();
    expect(await required.innerText()).toMatch(/Required\s*(yes|no)/);
    const signedIn = page.locator('tr[data-action="user.signed_in"] [data-details]').first();
    expect(await signedIn.innerText()).toMatch(/Second factor\s*\S+/);
    expect(await page.locator('main').innerText()).not.toContain('{"');
    await fitsPhone(page, 'audit-details');
    await page.getByRole('button', { name: 'Lire en français' }).click();
    await heading(page, 'Journal d’audit');
    expect(await page.locator('tr[data-action="team.two_factor_required"] [data-details]').first().innerText()).toMatch(/Exigée\s*(oui|non)/);
    await shot(page, 'audit-details-fr-360');
  });
});
