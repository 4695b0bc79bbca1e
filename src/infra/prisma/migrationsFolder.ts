/**
 * Where the migrations and the schema are, in a module of its own: the start-up check
 * (migrationStatus.ts) needs the folder without loading migrate.ts, whose schema engine glue is
 * only wanted when a migration is pending. Resolved from this file: the same in src/ and dist/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MIGRATIONS_DIR = path.join(projectRoot, 'prisma/migrations');
export const SCHEMA_PATH = path.join(projectRoot, 'prisma/schema.prisma');
