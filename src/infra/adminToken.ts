/**
 * The bootstrap operator token. When GATEWAY_ADMIN_TOKEN is unset, one is generated on first
 * start, kept in the data folder (readable by its owner only) and printed once. Hosts sharing a
 * database must share it (the checkout form key is derived from it): see sharedSecrets.ts.
 */
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OPERATOR_TOKEN_PREFIX, generateSecret } from '../domain/access/auth.js';
import type { LocalSecretSource } from './sharedSecrets.js';
import { StartupError } from './startupErrors.js';

/** The operator token kept in `dataDir/admin-token`, generated there when asked to. */
export function adminTokenSource(dataDir: string): LocalSecretSource {
  const file = path.resolve(dataDir, 'admin-token');
  const read = async () => (await readFile(file, 'utf8').catch(() => null))?.trim() || null;
  return {
    where: file,
    read,
    async create() {
      const { secret } = generateSecret(OPERATOR_TOKEN_PREFIX);
      try {
        await mkdir(dataDir, { recursive: true });
        // 'wx': of two starts on one folder at once, one writes and the other reads what it wrote.
        await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
        return { value: secret, created: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const written = await read();
          if (written) return { value: written, created: false };
          throw new StartupError(`${file} is empty: delete it, or set GATEWAY_ADMIN_TOKEN`);
        }
        throw new StartupError(`GATEWAY_ADMIN_TOKEN is unset and the generated token cannot be stored in ${file}: set GATEWAY_ADMIN_TOKEN (or make GATEWAY_DATA_DIR writable)`);
      }
    },
    discard: () => unlink(file),
  };
}
