/**
 * A REST surface's contract (openapi/v2.yaml, v1.yaml): parsed once per process, served as
 * `<root>/openapi.json`, and the source of the surface's route table.
 *
 * The route table is read straight from the contract's `paths` (each path's operations: method
 * and operationId). It was openapi-backend's `getOperations()`, which parsed and dereferenced the
 * whole contract and loaded its validator to list them: ~0.6 s of CPU and ~14 MB at every start,
 * before the gateway could listen. The contracts' path items are plain (no `$ref` at that level);
 * test/unit/contract-routes.test.ts keeps this table equal to openapi-backend's.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';

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
    contract = readFile(definition, 'utf8').then((text) => parseYaml(text) as unknown);
    contracts.set(definition, contract);
  }
  return contract;
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
