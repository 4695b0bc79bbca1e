/** Reading the gateway's CSV exports back in tests: RFC 4180, strictly (a malformed file throws). */

/** The records of `text`: each a list of fields; every line must end with CRLF. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) throw new Error(`unterminated quoted field at ${i}`);
        field += text.slice(i, quote);
        i = quote + 1;
        if (text[i] === '"') {
          field += '"';
          i += 1;
        } else break;
      }
    } else {
      const end = text.slice(i).search(/[,\r\n"]/);
      const stop = end === -1 ? text.length : i + end;
      if (text[stop] === '"') throw new Error(`a quote inside an unquoted field at ${stop}`);
      field = text.slice(i, stop);
      i = stop;
    }
    record.push(field);
    if (text[i] === ',') {
      i += 1;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
      continue;
    }
    throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 10))}`);
  }
  if (record.length) throw new Error('the last line does not end with CRLF');
  return records;
}

/** A CSV with a header line as objects keyed by the header's names (every line as long as the header). */
export function csvObjects(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header, ...lines] = parseCsv(text);
  if (!header) throw new Error('no header line');
  return {
    header,
    rows: lines.map((fields, index) => {
      if (fields.length !== header.length) throw new Error(`line ${index + 2} has ${fields.length} fields, the header ${header.length}`);
      return Object.fromEntries(header.map((name, column) => [name, fields[column]!]));
    }),
  };
}
