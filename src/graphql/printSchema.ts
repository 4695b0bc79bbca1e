/** The printed SDL of the schema, as committed in schema/schema.graphql for clients and codegen. */
import { projectPath } from '../infra/projectFiles.js';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema/index.js';

export const SCHEMA_FILE = projectPath('schema', 'schema.graphql');

export function printSchemaFile(): string {
  return `# Generated from the Pothos schema by \`npm run schema:print\`. Do not edit by hand.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
