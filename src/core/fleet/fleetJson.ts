/**
 * `sdma-lens fleet --json` as pieces of text: exactly the text of `jsonText({ ...view, fleetFile }, 2)`,
 * but made one array element at a time (a node, a figure row with its cells, an outlier), so a
 * writer can hand each piece on and wait for the pipe to take it: a fleet of thousands of
 * nodes is never one string of hundreds of megabytes. Browser-safe.
 */
import { jsonText } from '../text';
import type { FleetView } from './fleetView';

/** `text` (JSON.stringify's with 2 spaces) moved right by `by` spaces after its first line. */
function indented(text: string, by: string): string {
  return text.includes('\n') ? text.replace(/\n/g, `\n${by}`) : text;
}

/** The pieces of the fleet's JSON, in order; joined they are `jsonText({ ...view, fleetFile }, 2)`. */
export function* fleetJsonPieces(view: FleetView, fleetFile: string): Generator<string> {
  const whole: Record<string, unknown> = { ...view, fleetFile };
  const entries = Object.entries(whole).filter(
    ([, value]) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol',
  );
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (let e = 0; e < entries.length; e++) {
    const [key, value] = entries[e]!;
    const name = `  ${jsonText(key)}: `;
    if (Array.isArray(value) && value.length > 0) {
      yield `${name}[\n`;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        // JSON.stringify writes an element it cannot (undefined, a function) as null.
        const text =
          item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : jsonText(item, 2);
        yield `    ${indented(text, '    ')}${i < value.length - 1 ? ',' : ''}\n`;
      }
      yield `  ]${e < entries.length - 1 ? ',' : ''}\n`;
    } else {
      yield `${name}${indented(jsonText(value, 2), '  ')}${e < entries.length - 1 ? ',' : ''}\n`;
    }
  }
  yield '}';
}
