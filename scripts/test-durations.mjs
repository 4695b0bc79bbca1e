#!/usr/bin/env node
/**
 * Writes test/durations.json (seconds per test file, longest first) from what the last full run's
 * file-durations reporter recorded (test/support/fileDurations.ts; `.ci/run` and `npm test` use
 * it), or from the file named. test/support/sequencer.ts reads it to start the longest files first.
 *
 *   node scripts/test-durations.mjs [node_modules/.cache/test-file-durations.json]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? path.join(root, 'node_modules', '.cache', 'test-file-durations.json');
const recorded = JSON.parse(readFileSync(source, 'utf8'));
// Paths from the recording checkout (a CI clone may live elsewhere): from its test/ folder on.
// Files deleted or renamed since they were recorded are left out.
const rows = Object.entries(recorded)
  .map(([file, seconds]) => [file.replace(/^.*?(test\/)/, '$1'), seconds])
  .filter(([file]) => existsSync(path.join(root, file)))
  .sort((a, b) => b[1] - a[1]);
writeFileSync(path.join(root, 'test', 'durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 1)}\n`);
console.log(`test/durations.json: ${rows.length} files, ${Math.round(rows.reduce((sum, [, s]) => sum + s, 0))} s in all`);
