/** Writes schema/schema.graphql from the Pothos schema (a test fails when it is stale). */
import { writeFile } from 'node:fs/promises';
import { printSchemaFile, SCHEMA_FILE } from '../src/graphql/printSchema.js';

await writeFile(SCHEMA_FILE, printSchemaFile());
console.log(`wrote ${SCHEMA_FILE}`);
