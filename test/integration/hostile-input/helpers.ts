/**
 * The one judgement of the hostile-input suite (not a test file itself): an operation fuzzed with
 * fast-check never answers 5xx, refuses in its surface's own error shape, and a refusal leaves
 * the database exactly as it was (a fingerprint of every table, taken before and after each run).
 */
import fc from 'fast-check';
import type pg from 'pg';
import { fuzzParameters, stateFingerprint, type RawAnswer } from '../../support/fuzz.js';

/** How a surface's answer reads: whether it refused, and what is wrong with it (null: nothing). */
export interface Verdict {
  refused: boolean;
  problem: string | null;
}

/** A REST refusal: 4xx with exactly one string field, `error` (v2) or `Detail` (v1). */
export function restVerdict(field: 'error' | 'Detail', answer: RawAnswer, options: { mustRefuse: boolean }): Verdict {
  const refused = answer.status >= 400;
  if (answer.status >= 500) return { refused, problem: `answered ${answer.status}` };
  if (!refused) return { refused, problem: options.mustRefuse ? `accepted (${answer.status}) what must be refused` : null };
  const body = answer.body;
  const shaped =
    body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).join() === field && typeof body[field] === 'string' && body[field].length > 0;
  return { refused, problem: shaped ? null : `refusal not in the {"${field}"} shape` };
}

/**
 * A GraphQL answer: never 5xx; every error carries `extensions.code` (never INTERNAL_SERVER_ERROR);
 * refused when there are errors and no root field produced data.
 */
export function graphqlVerdict(answer: RawAnswer): Verdict {
  const body = answer.body;
  if (answer.status >= 500) return { refused: true, problem: `answered ${answer.status}` };
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { refused: true, problem: 'not a GraphQL response object' };
  const unknownKeys = Object.keys(body).filter((key) => key !== 'data' && key !== 'errors' && key !== 'extensions');
  if (unknownKeys.length > 0) return { refused: true, problem: `unexpected fields ${unknownKeys.join(', ')}` };
  const errors: unknown[] = body.errors ?? [];
  if (!Array.isArray(errors)) return { refused: true, problem: 'errors is not a list' };
  const refused = errors.length > 0 && (!body.data || Object.values(body.data).every((value) => value === null));
  if (answer.status >= 400 && errors.length === 0) return { refused, problem: `status ${answer.status} without errors` };
  for (const error of errors as any[]) {
    if (typeof error?.message !== 'string') return { refused, problem: 'an error without a message' };
    const code = error.extensions?.code;
    if (typeof code !== 'string') return { refused, problem: `an error without extensions.code: ${error.message}` };
    if (code === 'INTERNAL_SERVER_ERROR') return { refused, problem: `internal error: ${error.message}` };
  }
  return { refused, problem: null };
}

const shown = (value: unknown): string => {
  const text =
    typeof value === 'string'
      ? value
      : (JSON.stringify(value, (_key, item) => (Buffer.isBuffer(item) || item?.type === 'Buffer' ? '<bytes>' : item)) ?? String(value));
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
};

/**
 * Runs `send` on every input fast-check draws from `inputs` (seeded, FUZZ_RUNS of them unless
 * told) and fails on the first answer `judge` finds wrong, or a refusal after which the
 * database differs (but for `except` tables). An accepted input may change state (GraphQL operators' mutations): the
 * fingerprint moves on with it.
 */
export async function fuzz<T>(
  client: pg.Client,
  inputs: fc.Arbitrary<T>,
  send: (input: T) => Promise<RawAnswer>,
  judge: (answer: RawAnswer) => Verdict,
  options: { runs?: number; except?: readonly string[] } = {},
): Promise<void> {
  const fingerprint = () => stateFingerprint(client, options.except);
  let before = await fingerprint();
  await fc.assert(
    fc.asyncProperty(inputs, async (input) => {
      const answer = await send(input);
      const { refused, problem } = judge(answer);
      if (problem) throw new Error(`${problem}: ${answer.status} ${shown(answer.body ?? answer.text)}`);
      const after = await fingerprint();
      if (refused && after !== before) throw new Error(`a refusal (${answer.status} ${shown(answer.body)}) changed the database:\n${diffLines(before, after)}`);
      before = after;
    }),
    fuzzParameters(options.runs),
  );
}

const diffLines = (before: string, after: string): string => {
  const old = new Set(before.split('\n'));
  return after
    .split('\n')
    .filter((line) => !old.has(line))
    .join('\n');
};
