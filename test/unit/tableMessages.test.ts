/** The table's page messages on the host side: a format is one of two words, and nothing else a page sends gets through. */
import { describe, expect, it } from 'vitest';
import { parseCollectiveWebviewMessage } from '../../src/core/collective/collectiveMessages';
import { parseCompareWebviewMessage } from '../../src/core/compare/compareMessages';
import { parseMatrixWebviewMessage } from '../../src/core/matrix/matrixMessages';
import { parseWebviewMessage } from '../../src/core/sweep/sweepMessages';

const parsers = {
  sweep: parseWebviewMessage,
  matrix: parseMatrixWebviewMessage,
  collective: parseCollectiveWebviewMessage,
  compare: parseCompareWebviewMessage,
} as const;

describe.each(Object.entries(parsers))('%s panel: table messages', (_name, parse) => {
  it('accepts an export as CSV or Markdown', () => {
    expect(parse({ type: 'export-table', format: 'csv' })).toEqual({ type: 'export-table', format: 'csv' });
    expect(parse({ type: 'export-table', format: 'markdown' })).toEqual({ type: 'export-table', format: 'markdown' });
  });

  it('refuses any other format', () => {
    for (const format of [
      'html',
      'CSV',
      'md',
      '../../etc/passwd',
      '',
      'csv\u0000',
      1,
      null,
      undefined,
      ['csv'],
      { toString: () => 'csv' },
    ]) {
      expect(parse({ type: 'export-table', format }), JSON.stringify(format) ?? String(format)).toBeUndefined();
    }
    expect(parse({ type: 'export-table' })).toBeUndefined();
  });

  it('takes no table, text or path from the page: the host builds what it writes', () => {
    expect(parse({ type: 'export-table', format: 'csv', path: '/etc/passwd', table: { rows: [] } })).toEqual({
      type: 'export-table',
      format: 'csv',
    });
    expect(parse({ type: 'copy-table', text: '| injected |' })).toEqual({ type: 'copy-table' });
  });
});
