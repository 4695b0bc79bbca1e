/**
 * The order test files start in: the longest first, by the durations of a past full run
 * (test/durations.json), so that the run does not end with one worker on a 45-second fault file
 * while the other idles. Vitest does this from its own cache, but a fresh clone (CI) has none and
 * falls back to file size, which says little about how long a file runs. Files the list does not
 * know yet (new ones) go first, as vitest does with unknown files. Order only: which files run,
 * and how, is unchanged. Regenerate the list with `node scripts/test-durations.mjs REPORT.json`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS_FILE = path.resolve(import.meta.dirname, '..', 'durations.json');

function knownDurations(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = knownDurations();
    const root = process.cwd();
    const seconds = (file: TestSpecification) => durations.get(path.relative(root, file.moduleId).split(path.sep).join('/'));
    // Vitest's own order first (its cache, else size): it stays the order among unknown files.
    const ordered = await super.sort(files);
    const unknown = ordered.filter((file) => seconds(file) === undefined);
    const known = ordered.filter((file) => seconds(file) !== undefined).sort((a, b) => seconds(b)! - seconds(a)!);
    return [...unknown, ...known];
  }
}
