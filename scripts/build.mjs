#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (one .js per .ts, same folders) so that `npm start` and the CLI run
 * plain JavaScript: no TypeScript transpiler in the running gateway (it cost ~100 MB of memory and
 * seconds of start-up). esbuild only strips types; `npm run typecheck` is what checks them.
 * Same folder depth as src/, so paths resolved from import.meta.url (openapi/, schema/,
 * prisma/migrations) hold in both.
 *
 * Skipped when dist/ is current: `npm start` runs this before every start, and rebuilding an
 * unchanged dist/ (esbuild of every file, brotli-11 of the dashboard bundle) cost seconds of each
 * start. "Current" is decided by content, never by clock: dist/.build-stamp.json holds a hash of
 * every input (see inputsDigest) and the list of files the build wrote; any change to an input,
 * or a missing output, rebuilds. The stamp is written last, so an interrupted build has none.
 * `--force` rebuilds anyway.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { constants as zlib, brotliCompressSync, gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp.json');
const quiet = process.argv.includes('--quiet');
/**
 * Inputs outside src/: this script (how to build), the lockfile (esbuild's, preact's and yaml's
 * versions), tsconfig.json (esbuild reads its jsx settings), the REST contracts (compiled to JSON).
 */
const CONTRACTS = ['openapi/v2.yaml', 'openapi/v1.yaml'];
const OTHER_INPUTS = ['scripts/build.mjs', 'package-lock.json', 'tsconfig.json', ...CONTRACTS];

// npm 11 may skip the project's own postinstall: generate the Prisma client here if it is missing.
if (!existsSync(path.join(src, 'generated', 'prisma', 'client.ts'))) {
  const generated = spawnSync(process.execPath, [path.join(root, 'scripts', 'prisma-generate.mjs')], { stdio: 'inherit' });
  if (generated.status !== 0) process.exit(generated.status ?? 1);
}

const digest = inputsDigest();
if (process.argv.includes('--force') || !isCurrent(digest)) await buildDist(digest);
else if (!quiet) console.log('dist/ is up to date with src/ (nothing to build)');
await ensureDatabaseTemplate();

async function buildDist(inputs) {
  const entryPoints = readdirSync(src, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    // The dashboard's browser code is bundled on its own below, not run by node.
    .filter((file) => !file.startsWith(path.join('dashboard', 'client')))
    .map((file) => path.join(src, file));

  const started = performance.now();
  // Loaded only when building: a start with a current dist/ does not pay for it.
  const { build } = await import('esbuild');
  rmSync(dist, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: dist,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  await bundleGatewayEntry(build);
  // Guarded while the client is being written (a build must not fail for every other test meanwhile).
  if (existsSync(path.join(src, 'dashboard', 'client', 'main.tsx'))) await buildDashboardClient(build);
  await compileContracts();
  writeFileSync(stampFile, JSON.stringify({ inputs, outputs: filesUnder(dist) }));
  if (!quiet) console.log(`built ${entryPoints.length} files into dist/ in ${Math.round(performance.now() - started)} ms`);
}

/**
 * Packages left out of the bundle stay in node_modules, loaded by Node as they are:
 * - pg: the crash tests' preloads patch pg.Client.prototype from their own `import pg`; a copy of
 *   pg inside the bundle would never see the patch (and those tests would stop crashing);
 * - @electric-sql/pglite and its Prisma adapter: PGlite reads its WebAssembly and data files next
 *   to its own module, and the crash preloads patch PGlite.prototype too;
 * - @prisma/schema-engine-wasm (migrate.ts resolves its files), @node-rs/argon2 (a native
 *   addon), pino (its transports run in worker threads from their own files), esbuild (the
 *   build's, never loaded by the gateway);
 * - graphql: CommonJS, so inside the bundle every `import { X } from 'graphql'` became a read
 *   through a getter that esbuild's CommonJS wrapper defines per export, and GraphQL's executor
 *   reads those on every field it resolves (SchemaMetaFieldDef, isObjectType...): 13 % of the
 *   gateway's CPU in the bench's analytics scenario, which answered about a quarter fewer
 *   requests than before the bundle. Loaded by Node, the same module binds its exports once
 *   (and it is the copy the tests load: vitest.config.ts).
 */
function packagesLeftOutOfTheBundle() {
  return ['pg', '@electric-sql/pglite', 'pglite-prisma-adapter', '@prisma/schema-engine-wasm', '@node-rs/argon2', 'pino', 'esbuild', 'graphql'];
}

/**
 * dist/main.js, what `npm start` runs, as one bundle of our code and most dependencies (the
 * file-by-file build above stays for the CLI and anything else loaded by path). A start opens
 * about 70 JavaScript files instead of about 540 (strace, GraphQL preloaded); from `node
 * dist/main.js` to /healthz, 3.1-3.9 -> 1.7-2.4 s of CPU with npm start's flags, 1.42-1.78 ->
 * 0.95-1.17 with the suite's (docs/development.md, twelfth session). What main.ts imports
 * lazily (GraphQL, migrations, Redis, PGlite) stays lazy: dist/chunks/, loaded when first asked.
 * `require` is defined for the CommonJS dependencies inside (esbuild's ESM output has none).
 */
async function bundleGatewayEntry(build) {
  await build({
    entryPoints: [path.join(src, 'main.ts')],
    outdir: dist,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Stack traces need the mappings, not the sources: with them, npm start's --enable-source-maps
    // parsed and kept ~20 MB of maps (a copy of every dependency, the query compiler's 4.5 MB of
    // base64 included).
    sourcesContent: false,
    logLevel: 'warning',
    external: packagesLeftOutOfTheBundle(),
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
  });
}

/**
 * Each REST contract as JSON beside the compiled code (dist/contracts/<name>.json), with a hash of
 * its YAML: src/rest/contract.ts reads it instead of parsing the YAML at every start (~0.6 s),
 * and only while that hash is the YAML's.
 */
async function compileContracts() {
  const { parse } = await import('yaml');
  const outdir = path.join(dist, 'contracts');
  mkdirSync(outdir, { recursive: true });
  for (const file of CONTRACTS) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const source = createHash('sha256').update(text).digest('hex');
    writeFileSync(path.join(outdir, `${path.basename(file, '.yaml')}.json`), JSON.stringify({ source, contract: parse(text) }));
  }
}

/**
 * The embedded database's template (src/infra/prisma/pglite.ts): a new data folder is a copy of it
 * instead of ~13 s of PGlite's initdb and every migration at its first start. Made here, once per
 * PGlite version and set of migrations; the check when it exists is a hash of the migrations. A
 * cache only: when it cannot be made the build still succeeds, and a new folder is made as before.
 */
async function ensureDatabaseTemplate() {
  const { ensureTemplate, templateFolder } = await import(pathToFileURL(path.join(dist, 'infra', 'prisma', 'pglite.js')).href);
  const folder = await templateFolder();
  if (existsSync(path.join(folder, 'PG_VERSION'))) return;
  console.log('preparing the embedded database template (once per set of migrations, about 10-15 s)');
  const started = performance.now();
  try {
    await ensureTemplate();
    if (!quiet) console.log(`made ${path.relative(root, folder)} in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    console.warn(
      `could not prepare the embedded database template (a new data folder will be made at its first start instead): ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** Every file under `folder`, as paths relative to it, sorted (the same list on every machine). */
function filesUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * A hash of everything the build reads: each file of src/ by name and content (a deleted or a new
 * file changes it too, the generated Prisma client included) and OTHER_INPUTS. Content, not
 * modification times: a checkout, a copy or a clock change cannot make a stale dist/ look current.
 * About 4 MB to read and hash: tens of milliseconds.
 */
function inputsDigest() {
  const hash = createHash('sha256');
  const files = [...filesUnder(src).map((file) => path.join('src', file)), ...OTHER_INPUTS];
  for (const file of files) {
    const full = path.join(root, file);
    hash
      .update(`${file}\0`)
      .update(existsSync(full) ? readFileSync(full) : '(missing)')
      .update('\0');
  }
  return hash.digest('hex');
}

/** dist/ was built from exactly these inputs, and every file that build wrote is still there. */
function isCurrent(inputs) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return false; // never built, or an interrupted build (the stamp comes last)
  }
  return (
    stamp.inputs === inputs && Array.isArray(stamp.outputs) && stamp.outputs.length > 0 && stamp.outputs.every((file) => existsSync(path.join(dist, file)))
  );
}

/**
 * The dashboard's browser app (src/dashboard/client/main.tsx, Preact): one minified bundle and its
 * stylesheet with a content hash in their names (served as immutable), each also precompressed
 * (brotli, gzip) so the server never compresses per request. manifest.json names them for the
 * HTML shell (src/dashboard/app.ts).
 */
async function buildDashboardClient(build) {
  const outdir = path.join(dist, 'dashboard', 'assets');
  const result = await build({
    entryPoints: [path.join(src, 'dashboard', 'client', 'main.tsx')],
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    // Browsers of the last few years (ES2020: optional chaining, nullish coalescing kept as written).
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const manifest = {};
  for (const output of Object.keys(result.metafile.outputs)) {
    const file = path.basename(output);
    if (file.endsWith('.js')) manifest.js = file;
    else if (file.endsWith('.css')) manifest.css = file;
    const bytes = readFileSync(output);
    writeFileSync(`${output}.br`, brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${output}.gz`, gzipSync(bytes, { level: 9 }));
  }
  writeFileSync(path.join(outdir, 'manifest.json'), JSON.stringify(manifest));
}
