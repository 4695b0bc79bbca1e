/**
 * A REST surface's contract (openapi/v2.yaml, v1.yaml): parsed once per process, served as
 * `<root>/openapi.json`, and the source of the surface's route table.
 *
 * The route table is read straight from the contract's `paths` (each path's operations: method
 * and operationId). It was openapi-backend's `getOperations()`, which parsed and dereferenced the
 * whole contract and loaded its validator to list them: ~0.6 s of CPU and ~14 MB at every start,
 * before the gateway could listen. The contracts' path items are plain (no `$ref` at that level);
 * test/unit/contract-routes.test.ts keeps this table equal to openapi-backend's.
 *
 * Parsing the YAML itself cost ~0.6 s of the start too (both contracts, with the `yaml` package):
 * the build also writes each as JSON (dist/contracts/<name>.json, scripts/build.mjs), with a hash
 * of the YAML it came from. The JSON is used only when that hash is the YAML's on disk now, so an
 * edited contract is never served from a stale copy; from src/ (the tests), there is none.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectPath } from '../infra/projectFiles.js';

export interface ContractRoute {
  operationId: string;
  method: string;
  /** The OpenAPI template, e.g. /transactions/{order_id}. */
  path: string;
}

/** The operations a path item may hold (OpenAPI 3): any other key (parameters, summary...) is not one. */
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Contract = { paths?: Record<string, Record<string, { operationId?: string } | undefined> | undefined> };

const contracts = new Map<string, Promise<unknown>>();

/** The contract as a plain object (its YAML parsed), read once per process. Callers must not modify it. */
export function readContract(definition: string): Promise<unknown> {
  let contract = contracts.get(definition);
  if (!contract) {
    contract = parsedContract(definition);
    contracts.set(definition, contract);
  }
  return contract;
}

/** What the build writes beside the compiled code: the YAML's hash and the contract as JSON. */
interface CompiledContract {
  source: string;
  contract: unknown;
}

const contractSourceHash = (yamlText: string): string => createHash('sha256').update(yamlText).digest('hex');

async function parsedContract(definition: string): Promise<unknown> {
  const text = await readFile(definition, 'utf8');
  const compiledFile = projectPath('dist', 'contracts', `${path.basename(definition, path.extname(definition))}.json`);
  const compiled = await readFile(compiledFile, 'utf8').then(
    (json) => JSON.parse(json) as CompiledContract,
    () => undefined,
  );
  if (compiled?.source === contractSourceHash(text)) return compiled.contract;
  // The YAML parser (~70 modules) is loaded only when there is no current JSON.
  const { parse } = await import('yaml');
  return parse(text) as unknown;
}

/** Every operation of the contract, in its order. */
export async function contractRoutes(definition: string): Promise<ContractRoute[]> {
  const { paths = {} } = (await readContract(definition)) as Contract;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item ?? {})
      .filter(([method]) => OPERATION_METHODS.includes(method))
      .map(([method, operation]) => ({ operationId: operation?.operationId ?? '', method: method.toUpperCase(), path })),
  );
}
