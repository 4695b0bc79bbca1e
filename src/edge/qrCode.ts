/**
 * A QR code as one SVG path: a rectangle per run of dark modules in a row, drawn here with `uqr`
 * (no image request, no outside service). Shared by the checkout's link QR (server-side SVG) and
 * the dashboard's (the link's QR and the two-step enrolment code, in the browser).
 */
import { encode } from 'uqr';

export interface QrDrawing {
  /** SVG path data in module units (viewBox 0 0 size size). */
  path: string;
  /** Modules per side, quiet zone included. */
  size: number;
}

/** Error correction M (15 % of the code may be damaged); `border`: the quiet zone, in modules. */
export function qrDrawing(text: string, border: number): QrDrawing {
  const { data, size } = encode(text, { ecc: 'M', border });
  let path = '';
  data.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      let end = x;
      while (row[end + 1]) end++;
      path += `M${x} ${y}h${end - x + 1}v1h-${end - x + 1}z`;
      x = end;
    }
  });
  return { path, size };
}
