#!/usr/bin/env node
// Operator CLI launcher (`npx gateway <command>`): the CLI is TypeScript, run through tsx's loader
// so there is no build step. Paths resolve from this file, so any working directory works.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
// exitCode, not exit(): let stdout drain when it is a pipe.
process.exitCode = await main(process.argv.slice(2));
