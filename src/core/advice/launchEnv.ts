/**
 * Where each debugger reads a launch configuration's environment, and the edits that set
 * variables there. Debuggers disagree: the C/C++ ones and cuda-gdb read `environment`, a
 * list of `{ "name", "value" }`, and ignore `env`; the others read `env`, an object. A
 * variable written in the wrong shape is silently not set, so a type not in the table is
 * never written into: the caller is told why instead.
 */
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import type { FormattingOptions, JSONPath, Node } from 'jsonc-parser';
import { PLAIN_WORD, checkedAssignments, jsonText, terminalLine } from '../text';
import type { KnobType } from '../text';
import { knob } from './knobs';

/**
 * What the knob-file writers (here and envFiles.ts) accept: a catalog knob with a value of its
 * type, or a variable the catalog lacks with a plain word (a user's own, e.g. OMP_NUM_THREADS=8).
 * Every value is written from its checked form (`knobAssignment`); anything else is not written.
 */
export const writableTypes = (name: string): KnobType | undefined => knob(name) ?? PLAIN_WORD;

/** `list`: `environment: [{ "name": ..., "value": ... }]`; `object`: `env: { NAME: value }`. */
export type EnvShape = 'list' | 'object';

/**
 * Debugger `type` -> the shape and key its launch configurations take, from each debugger's
 * own reference:
 * - `cppdbg`, `cppvsdbg` (Microsoft C/C++): `environment`, an array of {name, value}
 *   (https://code.visualstudio.com/docs/cpp/launch-json-reference; `env` is flagged "not
 *   allowed" for cppvsdbg, microsoft/vscode-cpptools#12537).
 * - `cuda-gdb` (NVIDIA Nsight Visual Studio Code Edition): `environment`, "Array containing
 *   objects that specify environment variables" with `name` and `value`
 *   (NVIDIA/nsight-vscode-edition package.json, configurationAttributes, 2024.1).
 * - `lldb` (CodeLLDB): `env`, a dictionary (vadimcn/codelldb MANUAL.md, "Launching a New Process").
 * - `python`, `debugpy`: `env`, an object of key-value pairs (microsoft/debugpy wiki,
 *   "Debug configuration settings").
 * - `node`: `env`, an object (https://code.visualstudio.com/docs/nodejs/nodejs-debugging).
 */
export const LAUNCH_ENV: Readonly<Record<string, { key: 'environment' | 'env'; shape: EnvShape }>> = {
  cppdbg: { key: 'environment', shape: 'list' },
  cppvsdbg: { key: 'environment', shape: 'list' },
  'cuda-gdb': { key: 'environment', shape: 'list' },
  lldb: { key: 'env', shape: 'object' },
  python: { key: 'env', shape: 'object' },
  debugpy: { key: 'env', shape: 'object' },
  node: { key: 'env', shape: 'object' },
};

/** The debugger SDMA Lens uses for a configuration it creates: GPU programs are C++. */
export const NEW_LAUNCH_TYPE = 'cppdbg';

export interface LaunchEntry {
  name: string;
  /** The debugger type as written, or undefined when the configuration has none. */
  type: string | undefined;
  /** Undefined for a type not in LAUNCH_ENV: nothing is written into such a configuration. */
  env: (typeof LAUNCH_ENV)[string] | undefined;
}

/** The named configurations of a launch.json (compounds are not configurations), in order. */
export function launchEntries(text: string): LaunchEntry[] {
  const root = parseTree(text);
  const items = root ? findNodeAtLocation(root, ['configurations']) : undefined;
  const out: LaunchEntry[] = [];
  for (const item of items?.type === 'array' ? (items.children ?? []) : []) {
    const name = findNodeAtLocation(item, ['name'])?.value;
    if (typeof name !== 'string') continue;
    const type = findNodeAtLocation(item, ['type'])?.value;
    const known = typeof type === 'string' && Object.hasOwn(LAUNCH_ENV, type) ? LAUNCH_ENV[type] : undefined;
    out.push({ name, type: typeof type === 'string' ? type : undefined, env: known });
  }
  return out;
}

export interface LaunchEnvResult {
  /** The new text, or the old one when nothing was written. */
  text: string;
  /** What was done, or why nothing was: for the review message. */
  description: string;
  /** False when the configuration's debugger is unknown or its environment has another shape. */
  written: boolean;
}

/** Indentation and line ends of the file itself, so inserted lines look like their neighbours. */
export function formattingOf(text: string): Required<Pick<FormattingOptions, 'insertSpaces' | 'tabSize' | 'eol'>> {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 4, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

interface Layout {
  unit: string;
  eol: string;
}

function layoutOf(text: string): Layout {
  const f = formattingOf(text);
  return { unit: f.insertSpaces ? ' '.repeat(f.tabSize) : '\t', eol: f.eol };
}

/** The whitespace that starts the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const lineStart = Math.max(text.lastIndexOf('\n', offset - 1) + 1, 0);
  return /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
}

function replaceAt(text: string, offset: number, length: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset + length);
}

/**
 * Adds items (already printed) at the end of an array or object node. jsonc-parser's own
 * insertion reformats the whole line it lands on (a one-line neighbour such as
 * `{ "name": "A", "value": "1" }, // why` would be split over four lines), so the text is put
 * in by hand: after the last item, on a line of its own when the items are one a line, on
 * the same line (folded to one line) when they share one; an empty container gets them one a
 * line. Items are printed with `\n`; the file's own line end replaces it.
 */
function appendItems(text: string, container: Node, items: string[], { unit, eol }: Layout): string {
  const children = container.children ?? [];
  const last = children.at(-1);
  if (last) {
    const multiLine = /\n/.test(text.slice(container.offset, last.offset));
    const end = last.offset + last.length;
    const lineEnd = text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end);
    const rest = /^[ \t]*(,)?[ \t]*(\/\/[^\r\n]*)?\r?$/.exec(text.slice(end, lineEnd));
    if (multiLine && rest) {
      // The last item ends its line (a trailing comma, a `// comment` may follow): the new
      // items go on the lines after it, the comment stays with its item, trailing commas stay.
      const indent = indentAt(text, last.offset);
      const at = text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
      const lines = items
        .map((i, k) => `${eol}${indent}${reindent(i, indent, eol)}${rest[1] || k < items.length - 1 ? ',' : ''}`)
        .join('');
      return rest[1] ? replaceAt(text, at, 0, lines) : replaceAt(replaceAt(text, at, 0, lines), end, 0, ',');
    }
    const sep = multiLine ? `,${eol}${indentAt(text, last.offset)}` : ', ';
    const put = (i: string) =>
      multiLine ? reindent(i, indentAt(text, last.offset), eol) : i.replace(/\n[ \t]*/g, ' ');
    return replaceAt(text, last.offset + last.length, 0, items.map((i) => `${sep}${put(i)}`).join(''));
  }
  const base = indentAt(text, container.offset);
  const inner = `${base}${unit}`;
  const body = items.map((i) => `${inner}${reindent(i, inner, eol)}`).join(`,${eol}`);
  const inside = text.slice(container.offset + 1, container.offset + container.length - 1);
  // Only blank space between the brackets is replaced: a comment there stays, after the items.
  if (inside.trim() === '') return replaceAt(text, container.offset + 1, inside.length, `${eol}${body}${eol}${base}`);
  return replaceAt(text, container.offset + 1, 0, `${eol}${body}`);
}

/**
 * A `// note` line above the property at `path` (a JSONC comment: launch.json and tasks.json
 * are read as JSONC), at its indentation; the text as it was when the property is missing or
 * the line above already says it. The note is one line (`terminalLine`).
 */
export function commentAbove(text: string, path: JSONPath, note: string): string {
  const root = parseTree(text);
  const property = root ? findNodeAtLocation(root, path)?.parent : undefined;
  if (property?.type !== 'property') return text;
  const comment = `// ${terminalLine(note)}`;
  const lineStart = text.lastIndexOf('\n', property.offset - 1) + 1;
  const above = text
    .slice(text.lastIndexOf('\n', Math.max(lineStart - 2, 0)) + 1, Math.max(lineStart - 1, 0))
    .replace(/\r$/, '');
  if (above.trim() === comment) return text;
  const indent = indentAt(text, property.offset);
  const eol = formattingOf(text).eol;
  // On a line of its own when the property starts its line; else the property moves to the next line.
  return text.slice(lineStart, property.offset).trim() === ''
    ? replaceAt(text, lineStart, 0, `${indent}${comment}${eol}`)
    : replaceAt(text, property.offset, 0, `${comment}${eol}${indent}`);
}

/** A printed value whose later lines are moved to `indent` (its first line goes where it is put). */
function reindent(printed: string, indent: string, eol: string): string {
  return printed.split('\n').join(`${eol}${indent}`);
}

/** `{ "name": ..., "value": ... }` on one line, as the C/C++ debuggers' examples write it; each datum is JSON text of its own. */
function listItem(name: string, value: string): string {
  return `{ "name": ${jsonText(name)}, "value": ${jsonText(value)} }`;
}

function configurationAt(text: string, index: number): Node | undefined {
  const root = parseTree(text);
  return root ? findNodeAtLocation(root, ['configurations', index]) : undefined;
}

/**
 * Sets variables in one launch configuration (by name) in its debugger's own shape,
 * creating the file's skeleton or a `cppdbg` configuration when missing. An existing
 * variable gets the new value in place; other variables, comments and formatting are kept.
 * Variables `writableTypes` refuses are left out. The description is one line (`terminalLine`):
 * the configuration's name and type are the user's file's. With `note`, a `// note` line goes
 * above the environment written (simulatedNote in envFiles.ts).
 */
export function setLaunchEnv(
  text: string,
  entryName: string,
  given: Record<string, string>,
  note?: string,
): LaunchEnvResult {
  const vars = checkedAssignments(given, writableTypes).vars;
  if (Object.keys(vars).length === 0)
    return { text, written: false, description: 'no setting with a value of its type to write; nothing was written.' };
  const layout = layoutOf(text);
  let current =
    text.trim().length > 0
      ? text
      : `{${layout.eol}${layout.unit}"version": "0.2.0",${layout.eol}${layout.unit}"configurations": []${layout.eol}}${layout.eol}`;
  const count = Object.keys(vars).length;
  if (!launchEntries(current).some((e) => e.name === entryName)) {
    const root = parseTree(current);
    const items = root ? findNodeAtLocation(root, ['configurations']) : undefined;
    if (items?.type !== 'array')
      return {
        text,
        written: false,
        description: '"configurations" of launch.json is not a list; nothing was written.',
      };
    const entry = {
      name: entryName,
      type: NEW_LAUNCH_TYPE,
      request: 'launch',
      program: '${workspaceFolder}/a.out',
      cwd: '${workspaceFolder}',
      environment: [],
    };
    current = appendItems(current, items, [jsonText(entry, layout.unit)], layout);
  }
  const index = launchEntries(current).findIndex((e) => e.name === entryName);
  const entry = launchEntries(current)[index]!;
  if (!entry.env) {
    const type = entry.type === undefined ? 'no debugger type' : `debugger type "${entry.type}"`;
    return {
      text,
      written: false,
      description: terminalLine(
        `launch configuration "${entryName}" has ${type}, and SDMA Lens knows where only ${Object.keys(LAUNCH_ENV).join(', ')} read their environment; nothing was written. Set ${Object.entries(
          vars,
        )
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')} there yourself.`,
      ),
    };
  }
  const { key, shape } = entry.env;
  const container = findNodeAtLocation(configurationAt(current, index)!, [key]);
  if (container && container.type !== (shape === 'list' ? 'array' : 'object')) {
    return {
      text,
      written: false,
      description: terminalLine(
        `"${key}" of launch configuration "${entryName}" is not ${shape === 'list' ? 'a list' : 'an object'}, as ${entry.type} reads it; nothing was written.`,
      ),
    };
  }
  // Values already there are replaced in place, from the end so earlier offsets stay right.
  const replacements: { node: Node; value: string }[] = [];
  const missing: [string, string][] = [];
  for (const [name, value] of Object.entries(vars)) {
    const node = container ? valueNode(container, shape, name) : undefined;
    if (node) {
      if (!(node.type === 'string' && node.value === value)) replacements.push({ node, value });
    } else {
      missing.push([name, value]);
    }
  }
  for (const { node, value } of replacements.sort((a, b) => b.node.offset - a.node.offset))
    current = replaceAt(current, node.offset, node.length, jsonText(value));
  if (missing.length > 0) {
    const items = missing.map(([name, value]) =>
      shape === 'list' ? listItem(name, value) : `${jsonText(name)}: ${jsonText(value)}`,
    );
    const configuration = configurationAt(current, index)!;
    const there = findNodeAtLocation(configuration, [key]);
    if (there) {
      current = appendItems(current, there, items, layout);
    } else {
      const open = shape === 'list' ? '[' : '{';
      const close = shape === 'list' ? ']' : '}';
      const property = `${jsonText(key)}: ${open}\n${items.map((i) => `${layout.unit}${i}`).join(',\n')}\n${close}`;
      current = appendItems(current, configuration, [property], layout);
    }
  }
  if (note !== undefined && current !== text) current = commentAbove(current, ['configurations', index, key], note);
  return {
    text: current,
    written: true,
    description: terminalLine(
      `${count} settings written into "${key}" of launch configuration "${entryName}" (${entry.type})`,
    ),
  };
}

/** The value node of variable `name` in an `environment` list or an `env` object. */
function valueNode(container: Node, shape: EnvShape, name: string): Node | undefined {
  if (shape === 'object') return findNodeAtLocation(container, [name]);
  const item = (container.children ?? []).find(
    (c) => c.type === 'object' && findNodeAtLocation(c, ['name'])?.value === name,
  );
  return item ? findNodeAtLocation(item, ['value']) : undefined;
}
