/**
 * CSV as RFC 4180 writes it: fields separated by commas, lines ended by CRLF, a field holding a
 * comma, a double quote, CR or LF enclosed in double quotes with its quotes doubled. UTF-8, no
 * byte order mark (RFC 4180 has none; the Content-Type says the charset).
 */

const NEEDS_QUOTES = /[",\r\n]/;

/** One field, quoted only when it must be. */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Free text a person typed (names, product names, a payout's reason): a spreadsheet runs a cell
 * that starts with = + - @ (or a tab or CR before one) as a formula, so such a value gets a leading
 * apostrophe, as OWASP advises against CSV injection. Values the gateway wrote or checked (ids,
 * amounts, statuses, phone numbers, URLs, timestamps) are written as they are: a phone's leading
 * "+" stays.
 */
export function csvText(value: string | null | undefined): string {
  const text = value ?? '';
  return csvField(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
}

/** A line: the fields (already written with csvField or csvText), then CRLF. */
export const csvLine = (fields: readonly string[]): string => `${fields.join(',')}\r\n`;

/** A timestamp as the v2 wire writes it (RFC 3339, UTC, milliseconds); empty when absent. */
export const csvTimestamp = (date: Date | null): string => (date ? date.toISOString() : '');

/**
 * Rows per chunk written: a chunk of 250 rows is some 70 kB of text, under V8's largest
 * young-generation object (128 kB), so it dies young. A whole batch as one string (about 300 kB)
 * goes to the large-object space, which only a full collection frees. Bench, million-row export on
 * a warmed-up gateway: RSS +18 MB with whole-batch strings, +6 MB in chunks of 250 (one run each).
 */
const ROWS_PER_CHUNK = 250;

function* chunksOf<Row>(rows: readonly Row[], line: (row: Row) => string): Generator<string, void, undefined> {
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    let chunk = '';
    for (let i = start; i < Math.min(start + ROWS_PER_CHUNK, rows.length); i++) chunk += line(rows[i]!);
    yield chunk;
  }
}

/**
 * The body of an export: the header line, then each batch's lines in chunks of ROWS_PER_CHUNK.
 * `first` is the batch already read (before the answer's headers went, so that a refusal could
 * still be an error answer); `rest` the batches after it, read one at a time as the client
 * takes them. However this ends (done, failed, or the client gone and the stream destroyed),
 * `rest` is closed, which gives its database connection back.
 */
export async function* csvBody<Row>(
  header: readonly string[],
  first: IteratorResult<Row[], void>,
  rest: AsyncGenerator<Row[], void, undefined>,
  line: (row: Row) => string,
): AsyncGenerator<string, void, undefined> {
  try {
    yield csvLine(header);
    if (first.done) return;
    yield* chunksOf(first.value, line);
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield* chunksOf(next.value, line);
  } finally {
    await rest.return(undefined);
  }
}
