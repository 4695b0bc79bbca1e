/**
 * Seeded mutations of valid request bodies, for "bad input never answers 500 nor writes a row"
 * tests: the same seed gives the same inputs, so a failure replays.
 */
import fc from 'fast-check';
import pg from 'pg';
import { httpRequest } from './http.js';

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
const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e300,
  -1e300,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  ' ',
  '0',
  '11',
  'wave',
  '\u0000',
  'é',
  '😀'.repeat(50),
  'x'.repeat(5000),
  '%00',
  '%20',
  'javascript:alert(1)',
  '+221771234567',
  [],
  [null],
  [[]],
  ['wave', 'bank'],
  {},
  { name: 'x' },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
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

// ---------------------------------------------------------------------------------------------
// Property-based hostile input (fast-check), for test/integration/hostile-input: every operation
// of REST v2, REST v1 and GraphQL gets bodies, queries, paths and content types no client should
// send. Seeded (FUZZ_SEED) and bounded (FUZZ_RUNS per operation), so a failure replays and the
// whole suite stays a few seconds per surface; fast-check prints the seed and path to replay.
// ---------------------------------------------------------------------------------------------
const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 100);
/** fast-check parameters for one operation's property: seeded, bounded, without a per-run timeout. */
export const fuzzParameters = (runs = FUZZ_RUNS): fc.Parameters<unknown> => ({ seed: FUZZ_SEED, numRuns: runs, endOnFailure: true });

/** `depth` arrays (or objects) inside each other: `[[[...]]]`. */
function nested(depth: number, kind: 'array' | 'object' = 'array'): unknown {
  let value: unknown = kind === 'array' ? [] : {};
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** Objects whose keys reach for the prototype (own `__proto__` keys, as JSON.parse makes them). */
const PROTOTYPE_KEYED: readonly unknown[] = [
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"__proto__": []}'),
  { constructor: { prototype: { polluted: true } } },
  JSON.parse('{"name": "x", "__proto__": {"isAdmin": true}}'),
];

/** Text PostgreSQL cannot store or a client should not send: lone surrogates, NUL, huge, tricky. */
const HOSTILE_STRINGS: readonly string[] = [
  '\ud800',
  '\udfff',
  'Bissap \ud800 juice',
  '\udc00\ud800',
  '\u0000',
  'a\u0000b',
  '%00',
  '\u202egnp.exe',
  '\ufeff',
  '\u2028',
  '',
  ' ',
  'x'.repeat(20_000),
  '😀'.repeat(300),
  'é'.repeat(201),
  '../../etc/passwd',
  `'; DROP TABLE "Transaction"; --`,
  '%',
  '%E0%A4%A',
  '\\',
  '"',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'https://127.0.0.1/\u0000',
  '+221771234567\u0000',
  '00000000-0000-0000-0000-000000000000',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '9223372036854775808',
  '0x10',
  'true',
  'null',
  'WAVE',
  'wave ',
  'wave\u0000',
  // The names fast-check slips into its strings ("dangerous strings": Object.prototype's members).
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'length',
];

/** Numbers at the edges of JSON and of int64. */
export const HOSTILE_NUMBERS: readonly number[] = [
  1e308,
  -1e308,
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  2 ** 53,
  Number.MAX_SAFE_INTEGER + 2,
  -0,
  0,
  -1,
  0.5,
  1e-300,
  2 ** 31,
  -(2 ** 31) - 1,
];

/** A string of odd units: lone surrogates, NUL and control characters among ordinary letters. */
const oddText = fc.string({
  unit: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u0000', '\u0001', '\u007f', 'a', 'é', '😀', '"', '\\', '%'),
  minLength: 1,
  maxLength: 12,
});

/**
 * One code point of any plane, surrogates excepted: what fc.string's 'binary' unit draws, with the
 * same bias towards small values. Not that unit itself: the first string arbitrary built on it
 * maps all 1.1 million code points back to their indexes (to see which of fast-check's "dangerous
 * strings" it could produce), about a second of CPU in every test worker that imports this file
 * (the fast loop's profile, docs/development.md). HOSTILE_STRINGS holds those strings instead.
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff - 0x800 }).map((index) => String.fromCodePoint(index < 0xd800 ? index : index + 0x800));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: oddText },
  fc.string({ unit: anyCodePoint, maxLength: 20 }),
);

/** Any value in a JSON body where something else is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(nested(40), nested(40, 'object'), nested(3000), [{}], [null], ['wave', 'orange_money'], {}, [], null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYED) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A copy of `valid` with 1 to 3 of `fields` set to hostile values (setters that no longer apply are skipped). */
export function mutatedBody(valid: Record<string, unknown>, fields: readonly FieldSetter[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.array(fc.tuple(fc.nat(fields.length - 1), hostileValue), { minLength: 1, maxLength: 3 }).map((mutations) => {
    const copy = structuredClone(valid) as Record<string, any>;
    for (const [index, value] of mutations) {
      try {
        fields[index]!(copy, value);
      } catch {
        // An earlier mutation made the parent a primitive: this one has nothing to change.
      }
    }
    return copy;
  });
}

/** What a fuzzed request carries: its body bytes and Content-Type (undefined: no header at all). */
export interface HostileBody {
  body: Buffer;
  contentType: string | undefined;
}

const CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json, text/plain',
  'application/graphql',
  '*/*',
  'application/octet-stream',
  'APPLICATION/JSON',
  'application/json;;charset=',
];

/** The JSON text of a body, bent at the text level: duplicate keys, BOM, garbage, odd number literals. */
function bentText(json: string, how: number, value: unknown): Buffer {
  const literal = JSON.stringify(value) ?? 'null';
  switch (how) {
    case 0: // A duplicate of the first key, hostile (then the valid one wins in JSON.parse, or the reverse).
      return Buffer.from(json.replace(/^\{"([^"]+)":/, (_all, key: string) => `{"${key}":${literal},"${key}":`));
    case 1:
      return Buffer.from(json.replace(/\}$/, `,${JSON.stringify(Object.keys(JSON.parse(json))[0] ?? 'x')}:${literal}}`));
    case 2:
      return Buffer.from(`\ufeff${json}`);
    case 3:
      return Buffer.from(json.slice(0, Math.max(1, Math.floor(json.length / 2))));
    case 4:
      return Buffer.from(`${json} ${json}`);
    case 5: // Number literals JSON.parse takes but JavaScript cannot hold exactly.
      return Buffer.from(
        json
          .replace(/:(-?\d+)([,}])/, ':1e400$2')
          .replace(/:(-?\d+)([,}])/, ':-0$2')
          .replace(/:(-?\d+)([,}])/, ':9223372036854775808$2'),
      );
    case 6:
      return Buffer.from(json.replace(/:(-?\d+)([,}])/, ':NaN$2'));
    case 7: // Bytes that are not UTF-8 (a surrogate encoded as CESU-8, an overlong NUL).
      return Buffer.concat([Buffer.from(json.slice(0, -2)), Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0x80]), Buffer.from(json.slice(-2))]);
    default:
      return Buffer.from(json.replace(/"[^"]*"\s*:\s*"/, (match) => `${match}\u0001\u0000`));
  }
}

/** A HostileBody that fast-check prints readably in a counterexample (text, not bytes). */
export function hostile(body: Buffer, contentType: string | undefined): HostileBody {
  const text = body.toString('utf8');
  return Object.assign(
    { body, contentType },
    {
      [fc.toStringMethod]: () => `${contentType ?? '(no content type)'} ${text.length > 300 ? `${text.slice(0, 300)}… (${body.length} bytes)` : text}`,
    },
  );
}

/**
 * Hostile bodies for an operation that takes `valid`: mutated fields, the whole body replaced
 * (arrays where an object is expected...), bent JSON text, and wrong content types.
 */
export function hostileBody(valid: Record<string, unknown>, fields: readonly FieldSetter[]): fc.Arbitrary<HostileBody> {
  const json = (value: unknown): HostileBody => hostile(Buffer.from(JSON.stringify(value) ?? ''), 'application/json');
  return fc.oneof(
    { weight: 6, arbitrary: mutatedBody(valid, fields).map(json) },
    { weight: 1, arbitrary: hostileValue.map(json) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(mutatedBody(valid, fields), fc.nat(8), hostileValue)
        .map(([body, how, value]) => hostile(bentText(JSON.stringify(body), how, value), 'application/json')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(mutatedBody(valid, fields), fc.constantFrom(...CONTENT_TYPES))
        .map(([body, contentType]) => hostile(Buffer.from(JSON.stringify(body)), contentType)),
    },
    { weight: 1, arbitrary: fc.constantFrom(hostile(Buffer.alloc(0), 'application/json'), hostile(Buffer.from('x'.repeat(200 * 1024)), 'application/json')) },
  );
}

/** Percent-encodes any string, lone surrogates included (as the bytes a careless client would send). */
export function encodeHostile(value: string): string {
  let out = '';
  for (const char of value) {
    if (/\p{Cs}/u.test(char)) out += '%ED%A0%80';
    else out += encodeURIComponent(char);
  }
  return out;
}

/** Path segments: hostile text (encoded), and raw sequences that are not valid percent-encoding. */
export const hostilePathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileString.map(encodeHostile) },
  fc.constantFrom('%', '%E0%A4%A', '%ED%A0%80', '%C0%80', '%00', '..%2F..%2F', '%2e%2e', 'a'.repeat(3000), '-0', '1e308', '9223372036854775808', '%FF%FE'),
);

/**
 * A phone number as clients write it into URLs: international with a raw or encoded `+`, spaced,
 * dotted or dashed (encoded or not), doubly encoded, or the bare 9-digit local number.
 */
export function phoneForms(local: string): string[] {
  const spaced = `${local.slice(0, 2)} ${local.slice(2, 5)} ${local.slice(5, 7)} ${local.slice(7)}`;
  return [
    `+221${local}`,
    `%2B221${local}`,
    `%252B221${local}`,
    `221${local}`,
    local,
    encodeURIComponent(`+221 ${spaced}`),
    `+221.${spaced.replaceAll(' ', '.')}`,
    spaced.replaceAll(' ', '-'),
    encodeURIComponent(`(+221) ${spaced}`),
  ];
}

/**
 * A request line's path and query carrying a secret or a phone in every place a URL can hold one
 * (a path segment, a query parameter's name, its value), among hostile segments and parameters:
 * for the log's redaction. `secrets` are sent raw and encoded.
 */
export function leakyUrl(roots: readonly string[], secrets: readonly string[], phones: readonly string[]): fc.Arbitrary<string> {
  const leak = fc.oneof(fc.constantFrom(...secrets.flatMap((secret) => [secret, encodeURIComponent(secret)])), fc.constantFrom(...phones.flatMap(phoneForms)));
  const segment = fc.oneof({ weight: 2, arbitrary: leak }, hostilePathSegment, fc.constantFrom('transactions', 'payouts', 'refund', '1'));
  const parameter = fc.oneof(
    fc.tuple(leak, hostileString.map(encodeHostile)).map(([name, value]) => `${name}=${value}`),
    fc.tuple(fc.constantFrom('q', 'ref', 'note', 'to', 'x', 'customer_phone', 'api_key'), leak).map(([name, value]) => `${name}=${value}`),
    leak,
  );
  return fc
    .tuple(fc.constantFrom(...roots), fc.array(segment, { minLength: 1, maxLength: 3 }), fc.array(parameter, { maxLength: 3 }))
    .map(([root, segments, parameters]) => `${root}/${segments.join('/')}${parameters.length ? `?${parameters.join('&')}` : ''}`);
}

/**
 * Opaque ids a GraphQL client might forge: global ids (`node(id:)`) and connection cursors that are
 * not base64, base64 of junk, of a type that is no node, of a node type with a bad id, empty, NUL.
 */
export const hostileOpaqueId: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.constantFrom('', 'a', '%00', '====', 'null', '0', '-1', 'A'.repeat(5000)),
  fc.base64String(),
  fc
    .tuple(fc.constantFrom('Transaction', 'Payout', 'Organization', 'Account', 'Webhook', 'Nope', '__proto__', '', '12'), fc.oneof(hostileString, fc.uuid()))
    .map(([type, id]) => Buffer.from(`${type}:${id}`).toString('base64')),
  fc.string().map((text) => Buffer.from(text).toString('base64url')),
);

/** A query string over `names` (plus prototype-ish and unknown names): hostile values, repeats, brackets. */
export function hostileQuery(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...names) },
    fc.constantFrom('__proto__', 'constructor[prototype][x]', 'a[b][c]', '%00', 'search[]'),
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: hostileString.map(encodeHostile) },
    fc.constantFrom('%', '%E0%A4%A', '%ED%A0%80', '-0', '1e308', '9223372036854775808', '0', '-1', '2026-13-45', '9999999-01-01T00:00:00Z', 'true', ''),
  );
  return fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`);
}

/** A raw HTTP answer, for fuzzed requests the harness's JSON helper would not send as such. */
export interface RawAnswer {
  status: number;
  text: string;
  body: any;
}

/** Sends bytes as they are (no content type unless given), and reads the answer as JSON when it is JSON. */
export async function sendRaw(
  url: string,
  method: string,
  init: { headers?: Record<string, string>; body?: Buffer; contentType?: string },
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.contentType !== undefined) headers['content-type'] = init.contentType;
  const withBody = init.body !== undefined && method !== 'GET' && method !== 'HEAD';
  const response = await httpRequest(url, { method, headers, body: withBody ? init.body : undefined });
  const text = response.text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, text, body };
}

/**
 * A fingerprint of everything the gateway stores (every table but the migrations log, with the
 * columns that legitimately move on a read left out: an API key's lastUsedAt; `except` names
 * tables to leave out too): equal before and after a refused request means the refusal changed nothing.
 *
 * Computing it reads every row of every table (about 2 ms of PostgreSQL's CPU, growing with the
 * rows the accepted requests add; the GraphQL fuzz file asks ~2,800 of them). Most requests are
 * refused and write nothing, so the fingerprint is computed again only when a statement may have
 * written since the last one: see `changeCounter`.
 */
export async function stateFingerprint(client: pg.Client, except: readonly string[] = []): Promise<string> {
  const key = except.join(',');
  const known = knownFingerprints.get(client) ?? new Map<string, { changes: string; fingerprint: string }>();
  knownFingerprints.set(client, known);
  // Read before the fingerprint is computed: a statement that ends after this read counts as a
  // change next time, even if the fingerprint below already saw its rows.
  const changes = await changeCounter(client);
  const last = known.get(key);
  if (last && last.changes === changes) return last.fingerprint;
  const result = await client.query<{ t: string; n: string; h: string }>({
    name: `state-fingerprint:${key}`,
    text: await fingerprintSql(client, except),
  });
  const fingerprint = result.rows.map((row) => `${row.t}:${row.n}:${row.h}`).join('\n');
  known.set(key, { changes, fingerprint });
  return fingerprint;
}

const knownFingerprints = new WeakMap<pg.Client, Map<string, { changes: string; fingerprint: string }>>();

/**
 * A number that moves whenever a statement may have written to a table of the database: every
 * table has a statement-level trigger (INSERT, UPDATE, DELETE, TRUNCATE; ENABLE ALWAYS, so no
 * session setting turns it off) that draws from a sequence. A sequence is not rolled back, so a
 * statement whose transaction then rolled back moves it too: that only costs a fingerprint. It
 * never stays still across a write, which is what lets an unchanged number stand for an
 * unchanged database. Installed in the test gateway's own database by `fingerprintClient`.
 */
async function changeCounter(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ last_value: string; is_called: boolean }>({
    name: 'fingerprint-changes',
    text: 'SELECT last_value, is_called FROM test_fingerprint_changes',
  });
  return `${rows[0]!.last_value}:${rows[0]!.is_called}`;
}

/** The gateway's tables, by name: every table but the migrations log. */
async function gatewayTables(client: pg.Client): Promise<{ name: string }[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY table_name`,
  );
  return rows;
}

async function installChangeCounter(client: pg.Client): Promise<void> {
  const rows = await gatewayTables(client);
  await client.query(`CREATE SEQUENCE IF NOT EXISTS test_fingerprint_changes;
CREATE OR REPLACE FUNCTION test_fingerprint_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('test_fingerprint_changes'); RETURN NULL; END $$;
${rows
  .map(
    ({
      name,
    }) => `CREATE OR REPLACE TRIGGER test_fingerprint_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${name}" FOR EACH STATEMENT EXECUTE FUNCTION test_fingerprint_changed();
ALTER TABLE "${name}" ENABLE ALWAYS TRIGGER test_fingerprint_changed;`,
  )
  .join('\n')}`);
}

/**
 * The fingerprint's statement, built once per connection and exclusion list: a test compares
 * hundreds of fingerprints, and PostgreSQL then plans the statement once (a named prepared
 * statement) instead of parsing some 40 table reads for every one.
 */
const fingerprintStatements = new WeakMap<pg.Client, Map<string, Promise<string>>>();
function fingerprintSql(client: pg.Client, except: readonly string[]): Promise<string> {
  const byExclusion = fingerprintStatements.get(client) ?? new Map<string, Promise<string>>();
  fingerprintStatements.set(client, byExclusion);
  const key = except.join(',');
  let sql = byExclusion.get(key);
  if (!sql) {
    sql = gatewayTables(client).then((tables) =>
      tables
        .filter(({ name }) => !except.includes(name))
        .map(
          ({ name }) =>
            `SELECT '${name}' AS t, count(*) AS n, md5(coalesce(string_agg((to_jsonb(x) - 'lastUsedAt')::text, '|' ORDER BY (to_jsonb(x) - 'lastUsedAt')::text), '')) AS h FROM "${name}" x`,
        )
        .join(' UNION ALL '),
    );
    byExclusion.set(key, sql);
  }
  return sql;
}

/** A connection for fingerprints, to the test gateway's own database; it installs the change counter there (again is harmless). */
export async function fingerprintClient(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await installChangeCounter(client);
  return client;
}
