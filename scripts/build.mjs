#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (one .js per .ts, same folders) so that `npm start` and the CLI run
 * plain JavaScript: no TypeScript transpiler in the running gateway (it cost ~100 MB of memory and
 * seconds of start-up). esbuild only strips types; `npm run typecheck` is what checks them.
 * Same folder depth as src/, so paths resolved from import.meta.url (openapi/, schema/,
 * prisma/migrations) hold in both.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as zlib, brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

// npm 11 may skip the project's own postinstall: generate the Prisma client here if it is missing.
if (!existsSync(path.join(src, 'generated', 'prisma', 'client.ts'))) {
  const generated = spawnSync(process.execPath, [path.join(root, 'scripts', 'prisma-generate.mjs')], { stdio: 'inherit' });
  if (generated.status !== 0) process.exit(generated.status ?? 1);
}

const entryPoints = readdirSync(src, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  // The dashboard's browser code is bundled on its own below, not run by node.
  .filter((file) => !file.startsWith(path.join('dashboard', 'client')))
  .map((file) => path.join(src, file));

const started = performance.now();
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
await writeContractsAsJson();
// Guarded while the client is being written (a build must not fail for every other test meanwhile).
if (existsSync(path.join(src, 'dashboard', 'client', 'main.tsx'))) await buildDashboardClient();
if (!process.argv.includes('--quiet')) console.log(`built ${entryPoints.length} files into dist/ in ${Math.round(performance.now() - started)} ms`);

/**
 * The REST contracts (openapi/*.yaml) as JSON in dist/openapi/: the compiled gateway reads these
 * instead of parsing YAML at every start (src/rest/contract.ts).
 */
async function writeContractsAsJson() {
  const { parse } = await import('yaml');
  const contracts = path.join(root, 'openapi');
  mkdirSync(path.join(dist, 'openapi'), { recursive: true });
  for (const file of readdirSync(contracts).filter((name) => name.endsWith('.yaml'))) {
    const document = parse(readFileSync(path.join(contracts, file), 'utf8'));
    writeFileSync(path.join(dist, 'openapi', file.replace(/\.yaml$/, '.json')), JSON.stringify(document));
  }
}

/**
 * The dashboard's browser app (src/dashboard/client/main.tsx, Preact): one minified bundle and its
 * stylesheet with a content hash in their names (served as immutable), each also precompressed
 * (brotli, gzip) so the server never compresses per request. manifest.json names them for the
 * HTML shell (src/dashboard/app.ts).
 */
async function buildDashboardClient() {
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
