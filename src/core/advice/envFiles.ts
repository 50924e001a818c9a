/**
 * Knob assignments in the files users keep them in (.env, shell scripts, launch.json and
 * tasks.json), found with their positions, and the text edits that set new values. Pure
 * text in, text positions out: the editor turns them into reviewable edits.
 */
import { applyEdits, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { Node } from 'jsonc-parser';
import { checkedAssignments, shellComment, terminalLine } from '../text';
import { commentAbove, formattingOf, setLaunchEnv, writableTypes } from './launchEnv';

export interface Assignment {
  name: string;
  value: string;
  /** Offsets of the value in the text (for diagnostics and quick fixes). */
  valueStart: number;
  valueEnd: number;
}

export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

export type EnvFileKind = 'dotenv' | 'shell' | 'launch' | 'tasks';

/** Only names that look like library knobs are read; the catalog decides which matter. */
const NAME = '[A-Z][A-Z0-9_]*';
const LINE = new RegExp(`^[ \\t]*(?:export[ \\t]+)?(${NAME})=("[^"\\n]*"|'[^'\\n]*'|[^\\s#;]*)`, 'gm');

/** `NAME=value` and `export NAME=value` lines (quotes stripped), as in .env files and shell scripts. */
export function findLineAssignments(text: string): Assignment[] {
  const out: Assignment[] = [];
  for (const m of text.matchAll(LINE)) {
    const raw = m[2]!;
    const quoted = raw.startsWith('"') || raw.startsWith("'");
    const start = m.index! + m[0].length - raw.length + (quoted ? 1 : 0);
    const value = quoted ? raw.slice(1, -1) : raw;
    out.push({ name: m[1]!, value, valueStart: start, valueEnd: start + value.length });
  }
  return out;
}

/**
 * Variables of launch configurations (launch.json) and tasks (tasks.json `options.env`): the
 * `env` object most debuggers read and the `environment` list of `{ "name", "value" }` the
 * C/C++ debuggers and cuda-gdb read (launchEnv.ts), whatever the configuration's type, so a
 * knob is checked wherever it is written. Offsets are those of the value node.
 */
export function findJsonAssignments(text: string): Assignment[] {
  const root = parseTree(text);
  if (!root) return [];
  const out: Assignment[] = [];
  const push = (name: unknown, value: Node | undefined) => {
    if (typeof name !== 'string' || !value || (value.type !== 'string' && value.type !== 'number')) return;
    const quoted = value.type === 'string' ? 1 : 0;
    out.push({
      name,
      value: String(value.value),
      valueStart: value.offset + quoted,
      valueEnd: value.offset + value.length - quoted,
    });
  };
  const visitEnv = (env: Node | undefined) => {
    for (const prop of env?.type === 'object' ? (env.children ?? []) : []) {
      const [key, value] = prop.children ?? [];
      if (key?.type === 'string') push(key.value, value);
    }
  };
  const visitEnvironment = (list: Node | undefined) => {
    for (const item of list?.type === 'array' ? (list.children ?? []) : []) {
      if (item.type === 'object') push(findNodeAtLocation(item, ['name'])?.value, findNodeAtLocation(item, ['value']));
    }
  };
  for (const list of ['configurations', 'tasks']) {
    const items = findNodeAtLocation(root, [list]);
    for (const item of items?.type === 'array' ? (items.children ?? []) : []) {
      visitEnv(findNodeAtLocation(item, ['env']));
      visitEnvironment(findNodeAtLocation(item, ['environment']));
      visitEnv(findNodeAtLocation(item, ['options', 'env']));
    }
  }
  return out;
}

export function findAssignments(text: string, kind: EnvFileKind): Assignment[] {
  return kind === 'launch' || kind === 'tasks' ? findJsonAssignments(text) : findLineAssignments(text);
}

/**
 * What a knob file says above values Suggest Settings took from a simulated run: they are the
 * model's, not a measurement. Written as a comment wherever the file takes one (.env, a shell
 * file, the clipboard's exports, launch.json and tasks.json, which VS Code reads as JSONC).
 */
export function simulatedNote(runId: string): string {
  return `SDMA Lens: these values come from run ${runId} on the simulated MI350X node, not from a measurement; measure on the real node before relying on them.`;
}

/**
 * Sets variables in a .env or shell file: replaces existing assignments, appends the rest.
 * Variables `writableTypes` refuses are left out. With `note`, a `# note` line goes above what
 * changes (the appended lines, or else the first line changed), unless the file has it already.
 */
export function setLineVariables(
  text: string,
  vars: Record<string, string>,
  kind: 'dotenv' | 'shell',
  note?: string,
): TextEdit[] {
  const edits: TextEdit[] = [];
  const existing = findLineAssignments(text);
  const appended: string[] = [];
  for (const [name, value] of Object.entries(checkedAssignments(vars, writableTypes).vars)) {
    const found = existing.filter((a) => a.name === name);
    if (found.length > 0) {
      for (const a of found)
        if (a.value !== value) edits.push({ offset: a.valueStart, length: a.valueEnd - a.valueStart, text: value });
    } else {
      appended.push(`${kind === 'shell' ? 'export ' : ''}${name}=${value}`);
    }
  }
  const comment =
    note !== undefined && (edits.length > 0 || appended.length > 0) && !text.split(/\r?\n/).includes(shellComment(note))
      ? shellComment(note)
      : undefined;
  if (comment !== undefined && appended.length === 0) {
    const first = Math.min(...edits.map((e) => e.offset));
    edits.push({ offset: text.lastIndexOf('\n', first - 1) + 1, length: 0, text: `${comment}\n` });
  }
  if (appended.length > 0) {
    const lead = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    edits.push({
      offset: text.length,
      length: 0,
      text: `${lead}${comment !== undefined ? `${comment}\n` : ''}${appended.join('\n')}\n`,
    });
  }
  return edits;
}

/**
 * Sets variables in one launch configuration (by name, in its debugger's own shape:
 * launchEnv.ts) or task (by label, `options.env`), creating the file's skeleton, the entry or
 * its environment as needed. Comments and formatting elsewhere in the file are kept. A launch
 * configuration whose debugger SDMA Lens does not know gets no edit (setLaunchEnv says why).
 * Variables `writableTypes` refuses are left out. With `note`, a `// note` line goes above the
 * entry's environment (VS Code reads both files as JSONC).
 */
export function setJsonEnv(
  text: string,
  kind: 'launch' | 'tasks',
  entryName: string,
  vars: Record<string, string>,
  note?: string,
): TextEdit[] {
  if (kind === 'launch') return replacementEdits(text, setLaunchEnv(text, entryName, vars, note).text);
  const checked = checkedAssignments(vars, writableTypes).vars;
  if (Object.keys(checked).length === 0) return [];
  const format = { formattingOptions: formattingOf(text) };
  let current = text.trim().length > 0 ? text : '{\n  "version": "2.0.0",\n  "tasks": []\n}\n';
  const root = parseTree(current);
  const items = root ? findNodeAtLocation(root, ['tasks']) : undefined;
  let index = (items?.children ?? []).findIndex((item) => findNodeAtLocation(item, ['label'])?.value === entryName);
  if (index === -1) {
    index = items?.children?.length ?? 0;
    const entry = { label: entryName, type: 'shell', command: 'echo', options: { env: {} } };
    current = applyEdits(current, modify(current, ['tasks', index], entry, { ...format, isArrayInsertion: true }));
  }
  for (const [name, value] of Object.entries(checked)) {
    current = applyEdits(current, modify(current, ['tasks', index, 'options', 'env', name], value, format));
  }
  if (note !== undefined && current !== text) current = commentAbove(current, ['tasks', index, 'options'], note);
  return replacementEdits(text, current);
}

/** The sentence for settings refused by `knobAssignment`: which were not written and why, on one line. */
export function notWritten(refused: readonly { name: string; reason: string }[]): string {
  return terminalLine(`not written: ${refused.map((r) => `${r.name} (${r.reason})`).join('; ')}.`);
}

/** Labels of tasks.json's tasks, in order. */
export function taskLabels(text: string): string[] {
  const root = parseTree(text);
  const items = root ? findNodeAtLocation(root, ['tasks']) : undefined;
  return (items?.type === 'array' ? (items.children ?? []) : [])
    .map((item) => findNodeAtLocation(item, ['label'])?.value)
    .filter((l): l is string => typeof l === 'string');
}

/**
 * One edit from `before` to `after` covering only the span that differs, so the editor's
 * review (and undo) shows the change and leaves every other byte of the file as it was.
 */
export function replacementEdits(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end++;
  // Never split a surrogate pair between the kept text and the edit.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  if (end > 0 && isHighSurrogate(before.charCodeAt(before.length - end - 1))) end--;
  return [{ offset: start, length: before.length - start - end, text: after.slice(start, after.length - end) }];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function applyTextEdits(text: string, edits: TextEdit[]): string {
  return [...edits]
    .sort((a, b) => b.offset - a.offset)
    .reduce((t, e) => t.slice(0, e.offset) + e.text + t.slice(e.offset + e.length), text);
}
