/**
 * The REST contracts (openapi/v2.yaml, openapi/v1.yaml) as documents, read once per process.
 *
 * Parsing YAML is slow: the two files cost ~0.5-1 s of CPU at every start (and at every test
 * gateway's start, before this cache). So the build writes each contract as JSON beside the
 * compiled code (dist/openapi/<name>.json, scripts/build.mjs), and a compiled gateway reads that;
 * the sources (tests, `npm run dev`) parse the YAML, once. A JSON copy older than its YAML is
 * never used.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/openapi/ when running compiled (src/openapi/, which does not exist, when running the sources). */
const COMPILED_CONTRACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../openapi');

export type OpenApiDocument = { paths?: Record<string, Record<string, { operationId?: string } | undefined>> } & Record<string, unknown>;

const documents = new Map<string, Promise<OpenApiDocument>>();

/** The contract at `definition` (an openapi/*.yaml path), parsed once per process. */
export function readContract(definition: string): Promise<OpenApiDocument> {
  let document = documents.get(definition);
  if (!document) {
    document = load(definition);
    documents.set(definition, document);
    // A failed read is not cached: the next caller tries again.
    document.catch(() => documents.delete(definition));
  }
  return document;
}

async function load(definition: string): Promise<OpenApiDocument> {
  const compiled = path.join(COMPILED_CONTRACTS, `${path.basename(definition, path.extname(definition))}.json`);
  const [source, copy] = await Promise.all([stat(definition), stat(compiled).catch(() => null)]);
  if (copy && copy.mtimeMs >= source.mtimeMs) return JSON.parse(await readFile(compiled, 'utf8')) as OpenApiDocument;
  // Loaded only here: the compiled gateway never needs a YAML parser.
  const { parse } = await import('yaml');
  return parse(await readFile(definition, 'utf8')) as OpenApiDocument;
}
