/**
 * A vitest reporter: how long each test file held its worker, from its import to its last
 * afterAll (collection, hooks and tests; vitest's JSON report counts the tests only, and a file
 * whose beforeAll seeds a million rows looked like 0.2 s, was started last and ended the run alone).
 * Merged into node_modules/.cache/test-file-durations.json after every run (a run of one file
 * updates that file's time and keeps the others'); `node scripts/test-durations.mjs` turns it
 * into test/durations.json for the sequencer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const FILE_DURATIONS_OUTPUT = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'test-file-durations.json');

export default class FileDurationsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const seconds = recorded();
    for (const module of testModules) {
      const { collectDuration, duration } = module.diagnostic();
      seconds[path.relative(process.cwd(), module.moduleId).split(path.sep).join('/')] = Math.round((collectDuration + duration) / 100) / 10;
    }
    mkdirSync(path.dirname(FILE_DURATIONS_OUTPUT), { recursive: true });
    writeFileSync(FILE_DURATIONS_OUTPUT, JSON.stringify(seconds));
  }
}

/** What earlier runs recorded; nothing when there is no record yet (or it cannot be read). */
function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(FILE_DURATIONS_OUTPUT, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
