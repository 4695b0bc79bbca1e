#!/usr/bin/env node
// Operator CLI launcher (`npx gateway <command>`). Runs the compiled CLI (dist/, built at install
// and at `npm start`), which starts in a fraction of the time; falls back to the TypeScript
// source through tsx when dist/ is missing or older than the source (while developing).
// Paths resolve from this file, so any working directory works.
import { existsSync, readdirSync, statSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const source = new URL('../src/cli/main.ts', import.meta.url);
// Every file of the CLI's folder counts (listen.ts beside main.ts), not only the entry point.
const folder = new URL('../src/cli/', import.meta.url);
const newestSource = Math.max(
  ...readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => statSync(new URL(name, folder)).mtimeMs),
);
const fresh = existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource;

let main;
if (fresh) {
  ({ main } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
}
// exitCode, not exit(): let stdout drain when it is a pipe.
process.exitCode = await main(process.argv.slice(2));
