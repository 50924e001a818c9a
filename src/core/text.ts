/**
 * Text from outside (helper messages, file names, argument values) made safe to print on a
 * terminal: C0 and C1 control characters, which a terminal obeys (clear the screen, move the
 * cursor, set the title), are written as escapes instead, `\x1b`. Browser-safe.
 */

// C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const escape = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** `text` with every control character escaped; with `{ newlines: true }` a '\n' stays a line break (multi-line text). */
export function escapeControls(text: string, options: { newlines?: boolean } = {}): string {
  return text.replace(options.newlines ? CONTROLS_BUT_NEWLINE : CONTROLS, escape);
}
