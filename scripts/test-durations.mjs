#!/usr/bin/env node
/**
 * Writes test/durations.json (seconds per test file, longest first) from a vitest JSON report,
 * e.g. the one `.ci/run` leaves in .ci/vitest-report.json. test/support/sequencer.ts reads it to
 * start the longest files first.
 *
 *   node scripts/test-durations.mjs .ci/vitest-report.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reportFile = process.argv[2];
if (!reportFile) {
  console.error('usage: node scripts/test-durations.mjs REPORT.json');
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const rows = report.testResults
  // Paths from the report's own checkout (a CI clone may live elsewhere): from its test/ folder on.
  .map((file) => [
    file.name
      .split(path.sep)
      .join('/')
      .replace(/^.*?\/(test\/)/, '$1'),
    Math.round((file.endTime - file.startTime) / 100) / 10,
  ])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(path.join(root, 'test', 'durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 1)}\n`);
console.log(`test/durations.json: ${rows.length} files, ${Math.round(rows.reduce((sum, [, s]) => sum + s, 0))} s in all`);
