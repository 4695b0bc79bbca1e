/**
 * GraphQL Code Generator (`npm run codegen`): typed documents for the operator CLI, and for the
 * tests' operations (test/support/graphql/*.graphql and the GraphiQL page's examples, plucked from
 * src/graphql/graphiql.ts). The outputs are checked in, so nothing is generated at install; rerun
 * after changing schema/schema.graphql or an operation (a test fails while an output is stale).
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

// No `typescript` plugin: typescript-operations 6 emits the enums and input types the
// operations use, and both in one file redeclare them (TS2300; graphql-code-generator#10782).
const typedDocuments = {
  plugins: ['typescript-operations', 'typed-document-node'],
  config: {
    useTypeImports: true,
    enumsAsTypes: true,
    scalars: { DateTime: 'string', SafeInt: 'number' },
  },
};

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  generates: {
    'src/cli/generated/graphql.ts': { documents: 'src/cli/operations.graphql', ...typedDocuments },
    'test/support/graphql/generated.ts': { documents: ['test/support/graphql/*.graphql', 'src/graphql/graphiql.ts'], ...typedDocuments },
    // The dashboard's browser app: the operations' text as strings (no GraphQL parser in the bundle).
    'src/dashboard/client/generated.ts': {
      documents: 'src/dashboard/client/*.graphql',
      ...typedDocuments,
      config: { ...typedDocuments.config, documentMode: 'string' },
    },
  },
};

export default config;
