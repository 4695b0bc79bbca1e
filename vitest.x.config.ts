import base from './vitest.config.js';
import { mergeConfig } from 'vitest/config';
export default mergeConfig(base, { test: { execArgv: ['--liftoff-only', '--single-threaded-gc'] } });
