/**
 * "Copy table", "Export CSV…" and "Export Markdown…" above a panel's table: the same three
 * buttons on every page, each a real button (Tab, Enter, Space) with a label saying what it
 * does. Copy writes the table's Markdown with the page's clipboard; a webview may not offer
 * one (or refuse it without focus), so then the page asks the host to copy it. The exports
 * only name the format: the host builds the table from its own view and writes the file.
 */
import type { TableMessage } from '../../src/core/tables/tableMessages';
import type { TableModel } from '../../src/core/tables/tableText';
import { tableMarkdown } from '../../src/core/tables/tableText';
import { el } from './dom';

export class TableActions {
  readonly element: HTMLElement;
  private readonly status: HTMLElement;
  constructor(
    private readonly post: (message: TableMessage) => void,
    /** The table as the page's view stands now; built only when Copy is pressed. */
    private readonly table: () => TableModel | undefined,
  ) {
    const button = (label: string, text: string, run: () => void) => {
      const b = el('button', { type: 'button', class: 'table-action', 'aria-label': label, title: label }, text);
      b.addEventListener('click', run);
      return b;
    };
    this.status = el('span', { class: 'table-action-status', role: 'status', 'aria-live': 'polite' });
    this.element = el(
      'div',
      { class: 'table-actions', role: 'toolbar', 'aria-label': 'Table' },
      button('Copy the table to the clipboard as Markdown', 'Copy table', () => void this.copy()),
      button('Export the table to a CSV file', 'Export CSV…', () => post({ type: 'export-table', format: 'csv' })),
      button('Export the table to a Markdown file', 'Export Markdown…', () =>
        post({ type: 'export-table', format: 'markdown' }),
      ),
      this.status,
    );
  }

  /** Hidden while the view has nothing to put in a table. */
  show(hasRows: boolean): void {
    this.element.hidden = !hasRows;
  }

  private async copy(): Promise<void> {
    const table = this.table();
    if (!table) return;
    const text = tableMarkdown(table);
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard in this page');
      await navigator.clipboard.writeText(text);
      this.status.textContent = `Copied ${table.rows.length} rows as Markdown`;
    } catch {
      this.post({ type: 'copy-table' });
      this.status.textContent = 'Copying through VS Code…';
    }
  }
}
