/**
 * The operator CLI as a child process (the real `bin/gateway.js`, as operators run it), or in this
 * process through its `main` (faster: no start-up per command).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { TestGateway } from './gateway.js';

export const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));

export interface CliResult {
  code: number;
  json: any;
  stdout: string;
}

/**
 * Runs `gateway ...args` against `gateway` with its admin token unless `env` overrides them, in
 * this process (the CLI's own `main`): ~0.5 s of process start-up per command, over a hundred
 * commands, was a large share of the suite. The contract is held as for a process: exactly one
 * JSON value on stdout, whatever happened. test/e2e/cli.test.ts runs the real bin/gateway.js.
 */
export async function runCli(gateway: TestGateway, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const { code, stdout } = await runCliInProcess(args, { ...gatewayEnv(gateway), ...env });
  try {
    return { code, json: JSON.parse(stdout), stdout };
  } catch {
    throw new Error(`gateway ${args.join(' ')} exited ${code} without JSON on stdout:\n${stdout}`);
  }
}

/** runCli through the real `bin/gateway.js` as a child process, as operators run it. */
export function runCliProcess(gateway: TestGateway, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, GATEWAY_URL: gateway.url, GATEWAY_ADMIN_TOKEN: gateway.adminToken, ...env };
    execFile(process.execPath, [BIN, ...args], { env: childEnv }, (error, stdout, stderr) => {
      const code = error ? Number(error.code ?? 1) : 0;
      // The contract: exactly one JSON value on stdout, whatever happened.
      try {
        resolve({ code, json: JSON.parse(stdout), stdout });
      } catch {
        reject(new Error(`gateway ${args.join(' ')} exited ${code} without JSON on stdout:\n${stdout}\n${stderr}`));
      }
    });
  });
}

export interface InProcessResult {
  code: number;
  /** Everything printed. */
  stdout: string;
  /** The one JSON value printed (undefined when the output is not JSON: help). */
  json: any;
}

/**
 * Runs `gateway ...args` in this process, through the CLI's own `main(argv, env)`: no process
 * start-up, for every test whose subject is not the process boundary. `env` is the whole
 * environment the CLI sees (nothing of this process's leaks in): `gatewayEnv` gives a gateway's.
 */
export async function runCliInProcess(args: string[], env: Record<string, string>): Promise<InProcessResult> {
  let stdout = '';
  const code = await main(args, env, {
    write: (text) => {
      stdout += text;
    },
  });
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, json };
}

/** The environment that points the CLI at `gateway` with its admin token. */
export const gatewayEnv = (gateway: TestGateway): Record<string, string> => ({ GATEWAY_URL: gateway.url, GATEWAY_ADMIN_TOKEN: gateway.adminToken });
