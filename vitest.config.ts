import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships both index.js and index.mjs without an exports map: Vite would give our
    // sources the .mjs copy while Yoga and Pothos, loaded by Node, get the .js one, i.e. two
    // GraphQLError classes. Tests must load exactly what production loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    // Each test file gets its own database cloned from a migrated template, so files run in
    // parallel safely; two workers match the machine's two cores.
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
