/**
 * GraphQL Code Generator: typed documents for the operator CLI (`npm run codegen`). The output
 * is checked in, so the CLI needs no generation step at install; rerun after changing
 * schema/schema.graphql or src/cli/operations.graphql.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: 'src/cli/operations.graphql',
  generates: {
    'src/cli/generated/graphql.ts': {
      // No `typescript` plugin: typescript-operations 6 emits the enums and input types the
      // operations use, and both in one file redeclare them (TS2300; graphql-code-generator#10782).
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', SafeInt: 'number' },
      },
    },
  },
};

export default config;
