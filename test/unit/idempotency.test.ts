import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/idempotency.js';

describe('canonicalJson', () => {
  it('gives the same text whatever the order of object keys, at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
  });
  it('keeps array order and distinguishes values', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: 'x', b: 'y' })).toBe('{"a":"x","b":"y"}');
  });
});
