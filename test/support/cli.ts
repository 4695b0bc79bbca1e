/** The operator CLI as a child process: the real `bin/gateway.js`, as operators run it. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestGateway } from './gateway.js';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));

export interface CliResult {
  code: number;
  json: any;
  stdout: string;
}

/** Runs `gateway ...args` against `gateway` with its admin token unless `env` overrides them. */
export function runCli(gateway: TestGateway, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
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
