/**
 * The bootstrap operator token. When GATEWAY_ADMIN_TOKEN is unset, one is generated on first
 * start, kept in the data folder (readable by its owner only) and printed once. Hosts sharing a
 * database must share it (the checkout form key is derived from it): see sharedSecrets.ts.
 */
import { OPERATOR_TOKEN_PREFIX, generateSecret } from '../domain/access/auth.js';
import { dataFolderSecretSource } from './dataFolderSecret.js';
import { ADMIN_TOKEN_FILE_NAME } from './localGateway.js';
import type { LocalSecretSource } from './sharedSecrets.js';

/** The operator token kept in `dataDir/admin-token` (the CLI reads it there too), generated there when asked to. */
export const adminTokenSource = (dataDir: string): LocalSecretSource =>
  dataFolderSecretSource({
    dataDir,
    fileName: ADMIN_TOKEN_FILE_NAME,
    variable: 'GATEWAY_ADMIN_TOKEN',
    generate: () => generateSecret(OPERATOR_TOKEN_PREFIX).secret,
  });
