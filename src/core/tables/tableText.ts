/**
 * A panel's numbers as text to take elsewhere: CSV for a spreadsheet or a script, GitHub
 * Markdown for an issue or a pull request. Both are written from one table model, so the two
 * exports and "Copy table" always hold the same rows. Browser-safe (no imports): the pages
 * copy the Markdown themselves, the host writes the files.
 */

/** A cell: text, a number (written unformatted, at full precision), or nothing. */
export type TableCell = string | number | null;

export interface TableModel {
  /** The Markdown heading; CSV has none (a comment line would be a data row to most readers). */
  title: string;
  columns: string[];
  rows: TableCell[][];
  /** What the numbers need said beside them (SIMULATED, how they were measured): Markdown only. */
  notes?: string[];
}

/** The note a table of simulated numbers carries first. */
export const SIMULATED_NOTE = 'SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.';

/** Notes of a view: SIMULATED first when the numbers are, then the view's own. */
export function notesOf(simulated: boolean, own: readonly string[]): string[] {
  return [...(simulated ? [SIMULATED_NOTE] : []), ...own];
}

export const TABLE_FORMATS = ['csv', 'markdown'] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

/** `String(n)` is the shortest text that reads back as exactly `n`. */
function cellText(cell: TableCell): string {
  if (cell === null) return '';
  return typeof cell === 'number' ? String(cell) : cell;
}

/**
 * A text cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or CR before
 * one): a kernel name, a file name or an imported tool's label is outside text, and a crafted one
 * could run a formula when the CSV is opened. Such cells get a leading `'`, which spreadsheets
 * show as text (the OWASP "CSV injection" advice). Numbers are written as numbers and never
 * change, so a negative number stays `-1.5`.
 */
export function csvSafeText(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvField(cell: TableCell): string {
  const text = typeof cell === 'string' ? csvSafeText(cell) : cellText(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180: a header record, then one record per row, CRLF after each; fields with `"`, `,`, CR or LF quoted, `"` doubled; text that would start a formula prefixed with `'` (`csvSafeText`). */
export function tableCsv(table: TableModel): string {
  const record = (cells: readonly TableCell[]) => `${cells.map(csvField).join(',')}\r\n`;
  return record(table.columns) + table.rows.map(record).join('');
}

/** Inside a table cell a `|` would end the cell and a line break the row; a backslash is escaped so the text reads back as written. */
function markdownCell(cell: TableCell): string {
  return cellText(cell)
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, '<br>');
}

function oneLine(text: string): string {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, ' ').trim();
}

/** A GitHub table under the title as a heading, the notes as a list below it. */
export function tableMarkdown(table: TableModel): string {
  const row = (cells: readonly TableCell[]) => `| ${cells.map(markdownCell).join(' | ')} |`;
  const lines = [
    `## ${oneLine(table.title)}`,
    '',
    row(table.columns),
    `|${table.columns.map(() => ' --- |').join('')}`,
  ];
  for (const r of table.rows) lines.push(row(r));
  const notes = table.notes ?? [];
  if (notes.length > 0) {
    lines.push('');
    for (const n of notes) lines.push(`- ${oneLine(n)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function tableText(table: TableModel, format: TableFormat): string {
  return format === 'csv' ? tableCsv(table) : tableMarkdown(table);
}

/** A file name for the export: the name's base kept to safe characters, the format's extension. */
export function tableFileName(base: string, format: TableFormat): string {
  const safe =
    base
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 160) || 'table';
  return `${safe}.${format === 'csv' ? 'csv' : 'md'}`;
}
