/**
 * Migrations without Prisma's native schema engine (it cannot be downloaded here): the same
 * engine compiled to WASM (@prisma/schema-engine-wasm, pinned to the Prisma version's engine
 * hash) drives our own driver adapter. Migrations are the SQL files in prisma/migrations and
 * are recorded in `_prisma_migrations` exactly as `prisma migrate deploy` would.
 */
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQueryable,
} from '@prisma/driver-adapter-utils';
import * as engineBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';

import { MIGRATIONS_DIR, SCHEMA_PATH } from './migrationsFolder.js';
import { loadOnce } from '../../domain/loadOnce.js';

export { MIGRATIONS_DIR };

/** Instantiates the engine's WASM once per process, wiring its JS glue as the import module. */
const loadEngineWasm = loadOnce(async (): Promise<void> => {
  const require = createRequire(import.meta.url);
  const wasmPath = path.join(path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')), 'schema_engine_bg.wasm');
  const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
    './schema_engine_bg.js': withUnrefTimers(engineBindings as unknown as WebAssembly.ModuleImports),
  });
  engineBindings.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
});

/**
 * The engine's JS glue, with its timers unref'd: after a migration the engine leaves a ~10 s timer
 * armed (a timeout of its own, not freed with the engine), which kept a process that had only
 * migrated (the test run's set-up, a migration script) alive that much longer. Unref'd, it still
 * fires while the process has work, and no longer holds an idle one open.
 */
function withUnrefTimers(bindings: WebAssembly.ModuleImports): WebAssembly.ModuleImports {
  const wrapped: WebAssembly.ModuleImports = { ...bindings };
  for (const [name, binding] of Object.entries(bindings)) {
    if (!name.startsWith('__wbg_setTimeout_') || typeof binding !== 'function') continue;
    wrapped[name] = (...args: unknown[]) => {
      const timer = (binding as (...values: unknown[]) => unknown)(...args);
      (timer as { unref?: () => void } | undefined)?.unref?.();
      return timer;
    };
  }
  return wrapped;
}

async function openEngine(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaEngine> {
  await loadEngineWasm();
  const datamodel = await readFile(SCHEMA_PATH, 'utf8');
  const { SchemaEngine } = engineBindings as unknown as { SchemaEngine: typeof import('@prisma/schema-engine-wasm').SchemaEngine };
  return SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, datamodel]] },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(withCharConstraintTypes(adapterFactory)),
  );
}

/**
 * The engine's describer reads each constraint's `contype` (a `"char"`) with a char getter, but
 * our drivers deliver `"char"` as text (database.ts reportCharAsText: @prisma/adapter-pg cannot
 * map it), so a CHECK constraint or a constraint trigger made it panic. The schema has both
 * (the ledger's migration: a deferred trigger that refuses unbalanced postings), so that column is
 * handed to the engine as the one-character value it is.
 */
function withCharConstraintTypes(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  const retyped = <A extends { queryRaw: SqlQueryable['queryRaw'] }>(adapter: A): A => {
    const queryRaw = adapter.queryRaw.bind(adapter);
    adapter.queryRaw = async (query) => {
      const result = await queryRaw(query);
      const index = result.columnNames.indexOf('constraint_type');
      if (index >= 0 && result.columnTypes[index] === ColumnTypeEnum.Text) result.columnTypes[index] = ColumnTypeEnum.Character;
      return result;
    };
    return adapter;
  };
  return Object.assign(Object.create(factory) as SqlMigrationAwareDriverAdapterFactory, {
    connect: async () => retyped(await factory.connect()),
    connectToShadowDb: async () => retyped(await factory.connectToShadowDb()),
  });
}

async function readMigrationList(dir = MIGRATIONS_DIR): Promise<MigrationList> {
  const names = (await readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: await readFile(path.join(dir, name, 'migration.sql'), 'utf8') },
      },
    })),
  );
  const lockfileContent = await readFile(path.join(dir, 'migration_lock.toml'), 'utf8').catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: lockfileContent },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

/** Applies pending migrations; idempotent. Returns the names it applied. */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openEngine(adapterFactory);
  try {
    const result = await engine.applyMigrations({
      migrationsList: await readMigrationList(),
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * SQL that would bring a database built by the migrations up to schema.prisma: empty when they
 * agree. Uses a shadow database (created and dropped by the adapter factory).
 */
export async function diffMigrationsToSchema(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  const engine = await openEngine(adapterFactory);
  try {
    const datamodel = await readFile(SCHEMA_PATH, 'utf8');
    const result = await engine.diff({
      from: { tag: 'migrations', ...(await readMigrationList()) },
      to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: datamodel }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return (result.stdout ?? '').trim();
  } finally {
    engine.free();
  }
}
