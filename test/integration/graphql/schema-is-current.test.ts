/**
 * schema/schema.graphql is what clients and codegen read: it must be exactly what the Pothos
 * schema prints today, so that a change to a type cannot ship without its SDL.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, printSchemaFile } from '../../../src/graphql/printSchema.js';

describe('schema/schema.graphql', () => {
  it('is the SDL the Pothos schema prints now', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    expect(printSchemaFile(), 'schema/schema.graphql is out of date: run `npm run schema:print` and commit the result').toBe(committed);
  });
});
