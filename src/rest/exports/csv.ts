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
 * The body of an export: the header line, then each batch's lines as one chunk (one write per
 * batch). `first` is the batch already read (before the answer's headers went, so that a refusal
 * could still be an error answer); `rest` the batches after it, read one at a time as the client
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
    yield csvLine(header) + (first.done ? '' : first.value.map(line).join(''));
    if (first.done) return;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value.map(line).join('');
  } finally {
    await rest.return(undefined);
  }
}
