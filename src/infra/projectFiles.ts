/**
 * The project's own files (the REST contracts, prisma/migrations, the built dashboard assets...)
 * found from the folder that holds package.json, never from a module's own place: a module runs
 * from dist/ (npm start, the CLI) or from src/ (the tests, `npm run dev`), and a relative path
 * like `../../..` silently meant something else once a module moved, or if dist/ were bundled.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `start` that holds a package.json (the project's, or a dependency's). */
export function folderWithPackageJson(start: string): string {
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (path.dirname(folder) === folder) throw new Error(`no package.json above ${start}: the gateway must run from its project folder`);
  }
}

const PROJECT_ROOT = folderWithPackageJson(path.dirname(fileURLToPath(import.meta.url)));

/** A path inside the project: `projectPath('openapi', 'v2.yaml')`. */
export const projectPath = (...segments: string[]): string => path.join(PROJECT_ROOT, ...segments);
