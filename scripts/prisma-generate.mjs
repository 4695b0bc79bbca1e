// Runs `prisma generate` without Prisma's native engines, which cannot be downloaded here:
// generation needs only WASM, but the CLI insists on a schema-engine binary path, so we point
// PRISMA_SCHEMA_ENGINE_BINARY at an existing file that is never executed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
