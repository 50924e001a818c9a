/**
 * The page messages every panel with a table shares: "Export CSV…" / "Export Markdown…" ask
 * the host to write the table to a file the user picks, and "Copy table" asks the host to put
 * the Markdown on the clipboard when the page's own clipboard is refused (a webview may not
 * have `navigator.clipboard`). Neither carries the table: the host builds it from its own
 * view of the run, so a page can name only a format, and only one of these.
 */
import * as v from 'valibot';
import { TABLE_FORMATS } from './tableText';

export const ExportTableMessageSchema = v.object({
  type: v.literal('export-table'),
  format: v.picklist(TABLE_FORMATS),
});
export const CopyTableMessageSchema = v.object({ type: v.literal('copy-table') });
export type TableMessage =
  v.InferOutput<typeof ExportTableMessageSchema> | v.InferOutput<typeof CopyTableMessageSchema>;
