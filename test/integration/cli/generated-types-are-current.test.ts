/**
 * The typed documents codegen.ts generates (the CLI's, the dashboard's, and the tests' with the
 * GraphiQL page's examples) match schema/schema.graphql and their operations today.
 */
import { readFile } from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../../codegen.js';

describe('generated typed documents', () => {
  it('are what codegen.ts generates today (else run `npm run codegen`)', async () => {
    const outputs = await generate({ ...config, cwd: process.cwd(), silent: true }, false);
    expect(outputs.map((output: { filename: string }) => output.filename.replace(`${process.cwd()}/`, '')).sort()).toEqual([
      'src/cli/generated/graphql.ts',
      'src/dashboard/client/generated.ts',
      'test/support/graphql/generated.ts',
    ]);
    for (const output of outputs) expect(await readFile(output.filename, 'utf8'), `${output.filename}: run \`npm run codegen\``).toBe(output.content);
  }, 60_000);
});
