/**
 * Text from outside is data, at every sink. Whatever a run file, a helper, another tool's
 * output, a file name or an argument says (node and GPU names, library versions, kernel names,
 * warnings, notes) reaches a terminal, a sourced shell block, an env file or a page only
 * through one of the functions here, one per kind of sink:
 *
 * - `terminalLine`: one report line. C0 and C1 control characters (which a terminal obeys:
 *   clear the screen, move the cursor, set the title), bidi controls (which reorder what is
 *   shown) and every line break are written as visible escapes (`\x1b`, `\u202e`, `\x0a`),
 *   so one field is always exactly one line. `escapeControls` is the same with the option to
 *   keep '\n' for text that is several lines on purpose (a stack trace, a remedy).
 * - `shellComment`: a `# ...` line of a block meant to be sourced: the same escapes, so
 *   nothing in it can end the comment.
 * - `knobAssignment` (and `shellExport`, `exportNote`, `checkedAssignments`): `NAME=value` for
 *   an `export` line, an env file or a launch configuration. NAME must be a knob of the catalog and the value one
 *   of the knob's type (a whole number, a flag, one of its enum values), written from that
 *   typed value, never the text as given; anything else is refused with the reason.
 * - `jsonText`: JSON.stringify, with DEL, C1, the bidi controls and line separators JSON leaves raw
 *   written as `\uXXXX` escapes (the same value when parsed).
 * - Pages (webview/): text through textContent, never markup, in bidi-isolated elements
 *   (webview/shared/dom.ts, page.css).
 *
 * Clean text goes through every one of them unchanged. Browser-safe.
 */

// C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F, NEL U+0085 among them); the bidi
// controls: ALM U+061C, LRM/RLM U+200E/F, LRE/RLE/PDF/LRO/RLO U+202A-U+202E, LRI/RLI/FSI/PDI
// U+2066-U+2069; the line and paragraph separators U+2028/U+2029.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// prettier-ignore
// eslint-disable-next-line no-control-regex
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** What JSON.stringify leaves raw inside strings and a terminal or an editor would obey. */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, '0');
const escape = (c: string) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);

/** `text` with every control, bidi control and line break escaped; with `{ newlines: true }` a '\n' stays a line break (multi-line text). */
export function escapeControls(text: string, options: { newlines?: boolean } = {}): string {
  return text.replace(options.newlines ? UNSAFE_BUT_NEWLINE : UNSAFE, escape);
}

/** One line of a report on a terminal: whatever `text` holds, the result is one line with nothing a terminal obeys. */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE, escape);
}

/**
 * Text for a Markdown sink (a hover, a tree item's tooltip): one line as `terminalLine` makes
 * it, then every character Markdown gives a meaning to (links, emphasis, code, HTML) escaped
 * with a backslash, so text from a run shows as written and never becomes a link.
 */
export function markdownText(text: string): string {
  return terminalLine(text).replace(/[\\`*_{}[\]()#+\-.!|<>~&:]/g, '\\$&');
}

/** A `# ...` comment line of a sourced shell block: `#` alone for empty text, else `# ` and the text on one line. */
export function shellComment(text: string): string {
  return text === '' ? '#' : `# ${terminalLine(text)}`;
}

/** JSON text of `value` (JSON.stringify's, `space` as there), with DEL, C1, bidi controls and line separators as `\uXXXX`. */
export function jsonText(value: unknown, space?: number | string): string {
  return JSON.stringify(value, null, space).replace(JSON_RAW, (c) => `\\u${hex(c, 4)}`);
}

/**
 * The types a knob's value can have (src/core/advice/knobCatalog.json, `kind`), and `word`: what
 * the env-file writers accept for a variable outside the catalog already in a user's file (a
 * plain word, nothing a shell or an env file reads as more than one value).
 */
export type KnobKind = 'bool' | 'enum' | 'bytes' | 'count' | 'word';

/** What a sink needs to know of a knob to check a value: its type and, for an enum, its values. */
export interface KnobType {
  readonly kind: KnobKind;
  readonly values?: readonly { readonly value: string }[];
}

/** The catalog's type of a knob, undefined for a name the catalog does not have (`knob` of advice/knobs.ts). */
export type KnobTypes = (name: string) => KnobType | undefined;

export type KnobAssignment = { ok: true; name: string; value: string } | { ok: false; name: string; reason: string };

/** An environment variable name as a shell and an env file take it. */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
/** A whole number of bytes or things, in decimal, as the libraries read them. */
const WHOLE = /^(?:0|[1-9][0-9]*)$/;
/** An enum value is written only when the catalog's own value is a plain word. */
const WORD = /^-?[A-Za-z0-9_][A-Za-z0-9_.]*$/;
/** A plain word outside the catalog: letters, digits and `_ . , : / @ % + -`, no quote, space, `$`, glob or line break. */
const PLAIN = /^[A-Za-z0-9_.,:/@%+-]{1,4096}$/;

/** The type the env-file writers give a variable the catalog lacks. */
export const PLAIN_WORD: KnobType = { kind: 'word' };

function refused(name: string, reason: string): KnobAssignment {
  return { ok: false, name, reason };
}

/** `value` as the whole number it means, or undefined: a number, or decimal digits with nothing around them. */
function wholeNumber(value: string | number | boolean): number | undefined {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && WHOLE.test(value) ? Number(value) : undefined;
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * `name=value` checked against the catalog: NAME a catalog knob, the value of the knob's
 * type, and the value returned written from that type (`String(n)` of a whole number, `0`/`1`
 * of a flag, the catalog's own spelling of an enum value), never the text given. Anything else
 * is refused, with the reason in words (the caller escapes it where it prints it).
 */
export function knobAssignment(name: string, value: string | number | boolean, types: KnobTypes): KnobAssignment {
  if (!ENV_NAME.test(name)) return refused(name, 'not an environment variable name');
  const type = types(name);
  if (!type) return refused(name, 'not a knob of the catalog');
  const shown = typeof value === 'string' ? `"${value}"` : String(value);
  switch (type.kind) {
    case 'bool': {
      const flag =
        value === true || value === 1 || value === '1'
          ? '1'
          : value === false || value === 0 || value === '0'
            ? '0'
            : undefined;
      return flag !== undefined
        ? { ok: true, name, value: flag }
        : refused(name, `its value ${shown} is not a flag (0 or 1)`);
    }
    case 'enum': {
      const found = (type.values ?? []).find((v) => v.value === String(value));
      return found && WORD.test(found.value)
        ? { ok: true, name, value: found.value }
        : refused(name, `its value ${shown} is not one of the catalog's values`);
    }
    case 'bytes':
    case 'count': {
      const n = wholeNumber(value);
      return n !== undefined
        ? { ok: true, name, value: String(n) }
        : refused(name, `its value ${shown} is not a whole number${type.kind === 'bytes' ? ' of bytes' : ''}`);
    }
    case 'word':
      return typeof value !== 'boolean' && PLAIN.test(String(value))
        ? { ok: true, name, value: String(value) }
        : refused(name, `its value ${shown} is not a plain word`);
    default:
      return refused(name, 'its catalog type is not one SDMA Lens writes');
  }
}

/** The `# note:` line said for a refused assignment: which knob was skipped and why, escaped. */
export function exportNote(refusal: { name: string; reason: string }): string {
  return shellComment(`note: ${refusal.name} skipped: ${refusal.reason}`);
}

/** `export NAME=value` for a catalog knob and a value of its type, else the `# note:` saying it was skipped and why. */
export function shellExport(name: string, value: string | number | boolean, types: KnobTypes): string {
  const a = knobAssignment(name, value, types);
  return a.ok ? `export ${a.name}=${a.value}` : exportNote(a);
}

/** The variables of `vars` whose assignment passes `knobAssignment`, with their typed values, and the refused ones with the reason. */
export function checkedAssignments(
  vars: Readonly<Record<string, string>>,
  types: KnobTypes,
): { vars: Record<string, string>; refused: { name: string; reason: string }[] } {
  const ok: Record<string, string> = {};
  const refusedOnes: { name: string; reason: string }[] = [];
  for (const [name, value] of Object.entries(vars)) {
    const a = knobAssignment(name, value, types);
    if (a.ok) ok[a.name] = a.value;
    else refusedOnes.push({ name: a.name, reason: a.reason });
  }
  return { vars: ok, refused: refusedOnes };
}
