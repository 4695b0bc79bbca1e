/**
 * The embedded database's own concerns: how PGlite is opened, and the template a new data folder
 * starts from. Profiled (docs/operations.md, "Start-up"): on a new folder PGlite runs PostgreSQL's
 * initdb in WASM (a second PGlite instance, then a copy of its files), ~10 s of CPU, and the schema
 * engine then applies every migration, ~3 s more; an existing folder opens in ~1.3 s. So a new
 * folder is made once per install as a template (initdb + every migration, by the build:
 * scripts/build.mjs), and each new data folder starts as a copy of it (a fraction of a second).
 *
 * A template is used only when it was made by this PGlite version from exactly these migrations
 * (its folder is named after a hash of both); otherwise the folder is made as before, by PGlite's
 * initdb and the schema engine. PGlite itself is imported only when an embedded database is
 * opened: a gateway on PostgreSQL never loads it.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { folderWithPackageJson, projectPath } from '../projectFiles.js';
import { MIGRATIONS_DIR } from './migrationsFolder.js';

/** A cache, not a source: anything here can be deleted, and is made again by the next build. */
const TEMPLATES_DIR = projectPath('node_modules', '.cache', 'xof-gateway', 'pglite-templates');

/**
 * PostgreSQL's shared buffers: 32 MB instead of the 128 MB of PGlite's postgresql.conf. PGlite
 * touches all of it at open, so it was resident for the life of the process: measured on an
 * existing folder, PGlite alone 284 MB at 128 MB, 219 at 64, 174 at 32, 162 at 16. An embedded
 * database is a newcomer's or a small shop's (megabytes of data): 32 MB holds its hot pages,
 * and a page not in them is read from the operating system's file cache.
 */
const SHARED_BUFFERS = '32MB';
/** The marker of a database folder: PGlite runs initdb in a folder without it. */
const VERSION_FILE = 'PG_VERSION';

/** Opens (and on a folder without a database, creates) a PGlite database with the gateway's settings. */
export async function createPGlite(dataDir: string): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
}

/** PGlite's version (its package.json, which its exports do not list: found beside its entry point). */
async function pgliteVersion(): Promise<string> {
  const folder = folderWithPackageJson(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
  return (JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The template's folder: PGlite's version and every migration's name and SQL, hashed. */
export async function templateFolder(): Promise<string> {
  const hash = createHash('sha256').update(await pgliteVersion());
  const names = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const name of names) hash.update(`\0${name}\0`).update(await readFile(path.join(MIGRATIONS_DIR, name, 'migration.sql')));
  return path.join(TEMPLATES_DIR, hash.digest('hex').slice(0, 16));
}

/**
 * Copies the template into `dataDir` when the folder holds no database yet and a current template
 * exists; says whether it did. PG_VERSION is copied last: a copy cut short leaves a folder without
 * it, which the next start fills again rather than opening half made.
 */
export async function seedFromTemplate(dataDir: string): Promise<boolean> {
  const folder = path.resolve(dataDir);
  if (existsSync(path.join(folder, VERSION_FILE))) return false;
  const template = await templateFolder();
  const marker = path.join(template, VERSION_FILE);
  if (!existsSync(marker)) return false;
  // Synchronous: nothing else runs yet, and fs.promises.cp took about three times the CPU of
  // cpSync for the template's ~1,100 files (measured: ~1.1 s against ~0.35 s).
  cpSync(template, folder, { recursive: true, filter: (source) => source !== marker });
  copyFileSync(marker, path.join(folder, VERSION_FILE));
  return true;
}

/**
 * Makes the template when there is no current one: in a folder of its own, renamed into place
 * when complete (a concurrent build or start sees none or a whole one), then removes the
 * templates of other PGlite versions or migrations. Returns the template's folder and whether it
 * had to be made. Called by scripts/build.mjs, which imports the compiled module by path.
 * @public
 */
export async function ensureTemplate(): Promise<{ folder: string; made: boolean }> {
  const folder = await templateFolder();
  if (existsSync(path.join(folder, VERSION_FILE))) return { folder, made: false };
  const building = `${folder}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  try {
    await migrateNewDatabase(building);
    await rename(building, folder).catch(async (error: NodeJS.ErrnoException) => {
      // Another build put the same template in place first: keep theirs.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  await removeOtherTemplates(folder);
  return { folder, made: true };
}

/** initdb (PGlite's, through create) and every migration (the schema engine, as at a start). */
async function migrateNewDatabase(dataDir: string): Promise<void> {
  const [{ PrismaPGlite }, { applyMigrations }] = await Promise.all([import('pglite-prisma-adapter'), import('./migrate.js')]);
  const client = await createPGlite(dataDir);
  try {
    await applyMigrations(new PrismaPGlite(client));
  } finally {
    await client.close();
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Every template but `current`, and builds left by processes that are gone (a build being made now stays). */
async function removeOtherTemplates(current: string): Promise<void> {
  for (const name of await readdir(TEMPLATES_DIR).catch(() => [])) {
    const builder = Number(/\.building-(\d+)$/.exec(name)?.[1]);
    if (path.join(TEMPLATES_DIR, name) === current || (builder && isAlive(builder))) continue;
    await rm(path.join(TEMPLATES_DIR, name), { recursive: true, force: true });
  }
}
