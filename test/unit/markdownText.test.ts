/**
 * Text from a run in a Markdown sink (the Runs view's tooltips, the kernel hover) shows as
 * written: a link, an image, HTML or emphasis in a run's id or problem stays text, and
 * controls, bidi marks and line breaks are shown escaped, so the text is one line.
 */
import { describe, expect, it } from 'vitest';
import { markdownText } from '../../src/core/text';

/** What a CommonMark renderer shows for backslash-escaped ASCII punctuation: the character itself. */
const shown = (md: string) => md.replace(/\\([!-/:-@[-`{-~])/g, '$1');

describe('markdownText', () => {
  it('escapes every character that would make a link, an image, HTML, code or emphasis', () => {
    const hostile =
      '[click](command:workbench.action.terminal.sendSequence) ![x](https://e/x.png) <img src=x onerror=1> `code` **b** https://e &amp;';
    const md = markdownText(hostile);
    expect(md).not.toMatch(/(?<!\\)[[\]()<>`*&:]/);
    expect(shown(md)).toBe(hostile);
  });

  it('shows controls, bidi marks and line breaks as escapes, on one line', () => {
    const md = markdownText('run\n# heading\u202eevil\x1b[2J');
    // eslint-disable-next-line no-control-regex
    expect(md).not.toMatch(/[\n\u202e\x1b]/);
    expect(shown(md)).toBe('run\\x0a# heading\\u202eevil\\x1b[2J');
  });

  it('leaves plain words as they are', () => {
    expect(markdownText('sweep 2026 12 03 sim')).toBe('sweep 2026 12 03 sim');
  });
});
