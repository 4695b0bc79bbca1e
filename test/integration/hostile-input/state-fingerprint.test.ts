/**
 * The hostile-input files' "a refusal changed nothing" rests on stateFingerprint
 * (test/support/fuzz.ts), which computes the fingerprint again only when the database's change
 * counter moved. Here: every way a write can land moves it, and an unchanged counter really
 * means an unchanged database.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fingerprintClient, stateFingerprint } from '../../support/fuzz.js';
import { cloneTemplateDatabase } from '../../support/gateway.js';

let clone: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let fingerprints: pg.Client;
let writer: pg.Client;

beforeAll(async () => {
  clone = await cloneTemplateDatabase();
  fingerprints = await fingerprintClient(clone.url);
  writer = new pg.Client({ connectionString: clone.url });
  await writer.connect();
});
afterAll(async () => {
  await writer?.end();
  await fingerprints?.end();
  await clone?.drop();
});

const insertOrganization = (name: string) =>
  writer.query(`INSERT INTO "Organization" (id, name, verified, "businessSector", "updatedAt") VALUES (gen_random_uuid(), $1, true, 'retail', now())`, [name]);

it('sees an insert, an update, a delete and a truncate made by another session', async () => {
  await insertOrganization('Keur Khady');
  const writes = [
    () => insertOrganization('Keur Awa'),
    () => writer.query(`UPDATE "Organization" SET name = 'Keur Fatou' WHERE name = 'Keur Awa'`),
    () => writer.query(`DELETE FROM "Organization" WHERE name = 'Keur Fatou'`),
    () => writer.query(`TRUNCATE "Organization" CASCADE`),
  ];
  for (const write of writes) {
    const before = await stateFingerprint(fingerprints);
    await write();
    expect(await stateFingerprint(fingerprints), write.toString()).not.toBe(before);
  }
});

it('sees a write made with triggers switched off for the session (session_replication_role = replica)', async () => {
  const before = await stateFingerprint(fingerprints);
  await writer.query('SET session_replication_role = replica');
  try {
    await insertOrganization('Keur Ibrahima');
  } finally {
    await writer.query('RESET session_replication_role');
  }
  expect(await stateFingerprint(fingerprints)).not.toBe(before);
});

it('gives the same fingerprint when nothing was written, and after a write that was rolled back', async () => {
  await insertOrganization('Keur Aminata');
  const before = await stateFingerprint(fingerprints);
  expect(await stateFingerprint(fingerprints)).toBe(before);
  await writer.query('BEGIN');
  await insertOrganization('Keur Ousmane');
  await writer.query('ROLLBACK');
  expect(await stateFingerprint(fingerprints)).toBe(before);
});

it('keeps one fingerprint per exclusion list', async () => {
  await insertOrganization('Keur Mariama');
  const whole = await stateFingerprint(fingerprints);
  const withoutOrganizations = await stateFingerprint(fingerprints, ['Organization']);
  expect(withoutOrganizations).not.toBe(whole);
  expect(withoutOrganizations).not.toContain('Organization:');
  expect(await stateFingerprint(fingerprints)).toBe(whole);
});

it('installs the counter once per database, whichever client comes second', async () => {
  const second = await fingerprintClient(clone.url);
  try {
    const before = await stateFingerprint(second);
    await insertOrganization('Keur Cheikh');
    expect(await stateFingerprint(second)).not.toBe(before);
    const triggers = await writer.query(
      `SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = 'test_fingerprint_changed' AND tgrelid = '"Organization"'::regclass`,
    );
    expect(triggers.rows[0].n).toBe(1);
  } finally {
    await second.end();
  }
});
