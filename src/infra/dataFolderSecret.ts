/**
 * A secret kept in the data folder when its environment variable is unset (the admin token, the
 * webhook secret key): generated on first start, written readable by its owner only, read back
 * on later starts. Hosts sharing a database must share it instead: see sharedSecrets.ts.
 */
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LocalSecretSource } from './sharedSecrets.js';
import { StartupError } from './startupErrors.js';

export interface DataFolderSecret {
  dataDir: string;
  /** The file's name in the data folder. */
  fileName: string;
  /** The environment variable that sets it instead (named in the errors). */
  variable: string;
  generate(): string;
  /** What an empty file means for this secret, beside "delete it". */
  whenEmpty?: string;
}

export function dataFolderSecretSource({ dataDir, fileName, variable, generate, whenEmpty }: DataFolderSecret): LocalSecretSource {
  const file = path.resolve(dataDir, fileName);
  const read = async () => (await readFile(file, 'utf8').catch(() => null))?.trim() || null;
  return {
    where: file,
    read,
    async create() {
      const generated = generate();
      try {
        await mkdir(dataDir, { recursive: true });
        // 'wx': of two starts on one folder at once, one writes and the other reads what it wrote.
        await writeFile(file, `${generated}\n`, { mode: 0o600, flag: 'wx' });
        return { value: generated, created: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const written = await read();
          if (written) return { value: written, created: false };
          throw new StartupError(`${file} is empty: delete it${whenEmpty ? ` ${whenEmpty}` : ''}, or set ${variable}`);
        }
        throw new StartupError(`${variable} is unset and its generated value cannot be stored in ${file}: set ${variable} (or make GATEWAY_DATA_DIR writable)`);
      }
    },
    discard: () => unlink(file),
  };
}
