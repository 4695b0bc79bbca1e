/**
 * Where the migrations and the schema are, in a module of its own: the start-up check
 * (migrationStatus.ts) needs the folder without loading migrate.ts, whose schema engine glue is
 * only wanted when a migration is pending.
 */
import { projectPath } from '../projectFiles.js';

export const MIGRATIONS_DIR = projectPath('prisma', 'migrations');
export const SCHEMA_PATH = projectPath('prisma', 'schema.prisma');
