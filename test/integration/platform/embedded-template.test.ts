/**
 * A new embedded data folder starts as a copy of the template the build makes (src/infra/prisma/
 * pglite.ts): it must open as a database with every migration applied, and a folder that already
 * holds a database must never be overwritten. The test run's global setup runs the build, which
 * makes the template when it is missing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/infra/prisma/database.js';
import { migrationsUpToDate } from '../../../src/infra/prisma/migrationStatus.js';
import { seedFromTemplate, templateFolder } from '../../../src/infra/prisma/pglite.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});
const newFolder = async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'gateway-template-'));
  folders.push(folder);
  return folder;
};

describe('the embedded database template', () => {
  it('exists once the build ran, named after PGlite and the migrations', async () => {
    expect(existsSync(path.join(await templateFolder(), 'PG_VERSION'))).toBe(true);
  });

  it('makes a new data folder a database with every migration applied', async () => {
    const dataDir = await newFolder();
    const db = await openDatabase({ dataDir });
    try {
      expect(db.fromTemplate).toBe(true);
      expect(await migrationsUpToDate(db)).toBe(true);
      expect(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM "Organization"')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
    // Opened again, the folder is a database already: nothing is copied over it.
    const again = await openDatabase({ dataDir });
    await again.close();
    expect(again.fromTemplate).toBe(false);
  }, 60_000);

  it('never copies over a folder that already holds a database', async () => {
    const dataDir = await newFolder();
    await writeFile(path.join(dataDir, 'PG_VERSION'), '17\n');
    expect(await seedFromTemplate(dataDir)).toBe(false);
    expect(existsSync(path.join(dataDir, 'base'))).toBe(false);
  });
});
