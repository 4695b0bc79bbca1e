import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { applyMigrations, diffMigrationsToSchema, MIGRATIONS_DIR } from '../../../src/infra/prisma/migrate.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

describe('migrations', () => {
  it('build exactly the database schema.prisma describes (no drift)', async () => {
    const drift = await diffMigrationsToSchema(gateway.db.adapterFactory);
    // The engine answers with an empty script, or only this comment, when there is nothing to do.
    expect(drift.replace(/^-- This is an empty migration\.\s*$/m, '').trim()).toBe('');
  }, 60_000);

  it('are recorded in _prisma_migrations, one finished row per migration folder', async () => {
    const folders = (await readdir(MIGRATIONS_DIR, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const rows = await gateway.ctx.db.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
      SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name`;
    expect(rows.map((row) => row.migration_name)).toEqual(folders.sort());
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
  });

  it('apply nothing the second time (idempotent start)', async () => {
    expect(await applyMigrations(gateway.db.adapterFactory)).toEqual([]);
  });
});
