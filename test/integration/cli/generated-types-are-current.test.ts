/** The CLI's typed documents match schema/schema.graphql and its operations (codegen.ts). */
import { readFile } from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../../codegen.js';

describe('src/cli/generated/graphql.ts', () => {
  it('is what codegen.ts generates today (else run `npm run codegen`)', async () => {
    const outputs = await generate({ ...config, cwd: process.cwd(), silent: true }, false);
    expect(outputs).toHaveLength(1);
    const [output] = outputs;
    expect(output?.filename).toMatch(/src\/cli\/generated\/graphql\.ts$/);
    expect(await readFile('src/cli/generated/graphql.ts', 'utf8'), 'run `npm run codegen`').toBe(output?.content);
  }, 60_000);
});
