/**
 * A spreadsheet reads a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula; a leading apostrophe makes it text again. Applied to every cell of a CSV file Laurel
 * writes (an import's result file, the console's figures), since some cells came from people.
 */
export const neutralizeCell = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** One CSV field: quoted when it holds a quote, a comma or a line break (RFC 4180). */
const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** One CSV line (CRLF), each cell neutralized and quoted as needed. */
export const csvLine = (cells: readonly string[]): string =>
  `${cells.map((c) => field(neutralizeCell(c))).join(",")}\r\n`;
