/**
 * Seeded mutations of valid request bodies, for "bad input never answers 500 nor writes a row"
 * tests: the same seed gives the same inputs, so a failure replays.
 */

/** mulberry32: a tiny seeded generator. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values of every JSON type and the edges of each: empty, huge, control characters, prototype keys. */
export const ODD_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e300, -1e300, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, '', ' ', '0', '11', 'wave',
  '\u0000', 'é', '😀'.repeat(50), 'x'.repeat(5000), '%00', '%20', 'javascript:alert(1)', '+221771234567', [], [null], [[]], ['wave', 'bank'],
  {}, { name: 'x' }, { __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } },
];

/** A setter of one field of a (copied) body, e.g. `(body, v) => (body.recipient.phone = v)`. */
export type FieldSetter = (body: Record<string, any>, value: unknown) => void;

/**
 * A copy of `body` with 1 to 3 fields (chosen among `fields`) set to odd values; one time in ten
 * the whole body is an odd value instead.
 */
export function mutated(body: Record<string, unknown>, fields: readonly FieldSetter[], next: () => number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const copy = structuredClone(body) as Record<string, any>;
  const mutations = 1 + Math.floor(next() * 3);
  for (let i = 0; i < mutations; i++) {
    try {
      pick(fields)(copy, pick(ODD_VALUES));
    } catch {
      // An earlier mutation made the parent a primitive: this one has nothing to change.
    }
  }
  return next() < 0.1 ? pick(ODD_VALUES) : copy;
}
