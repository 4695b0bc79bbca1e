// Prisma CLI configuration (used by `prisma generate`). The database URL is given at run time
// to the driver adapter (src/infra/prisma/client.ts), never read from here.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
});
