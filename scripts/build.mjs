#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (one .js per .ts, same folders) so that `npm start` and the CLI run
 * plain JavaScript: no TypeScript transpiler in the running gateway (it cost ~100 MB of memory and
 * seconds of start-up). esbuild only strips types; `npm run typecheck` is what checks them.
 * Same folder depth as src/, so paths resolved from import.meta.url (openapi/, schema/,
 * prisma/migrations) hold in both.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
if (!process.argv.includes('--quiet')) console.log(`built ${entryPoints.length} files into dist/ in ${Math.round(performance.now() - started)} ms`);
