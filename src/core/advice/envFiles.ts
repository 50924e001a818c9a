/**
 * Knob assignments in the files users keep them in (.env, shell scripts, launch.json and
 * tasks.json), found with their positions, and the text edits that set new values. Pure
 * text in, text positions out: the editor turns them into reviewable edits.
 */
import { applyEdits, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { Node } from 'jsonc-parser';

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

/** `env` entries of launch configurations (launch.json) or tasks (tasks.json options.env). */
export function findJsonAssignments(text: string): Assignment[] {
  const root = parseTree(text);
  if (!root) return [];
  const out: Assignment[] = [];
  const visitEnv = (env: Node | undefined) => {
    for (const prop of env?.type === 'object' ? env.children ?? [] : []) {
      const [key, value] = prop.children ?? [];
      if (key?.type === 'string' && value && (value.type === 'string' || value.type === 'number')) {
        const quoted = value.type === 'string' ? 1 : 0;
        out.push({ name: String(key.value), value: String(value.value), valueStart: value.offset + quoted, valueEnd: value.offset + value.length - quoted });
      }
    }
  };
  for (const list of ['configurations', 'tasks']) {
    const items = findNodeAtLocation(root, [list]);
    for (const item of items?.type === 'array' ? items.children ?? [] : []) {
      visitEnv(findNodeAtLocation(item, ['env']));
      visitEnv(findNodeAtLocation(item, ['options', 'env']));
    }
  }
  return out;
}

export function findAssignments(text: string, kind: EnvFileKind): Assignment[] {
  return kind === 'launch' || kind === 'tasks' ? findJsonAssignments(text) : findLineAssignments(text);
}

/** Sets variables in a .env or shell file: replaces existing assignments, appends the rest. */
export function setLineVariables(text: string, vars: Record<string, string>, kind: 'dotenv' | 'shell'): TextEdit[] {
  const edits: TextEdit[] = [];
  const existing = findLineAssignments(text);
  const appended: string[] = [];
  for (const [name, value] of Object.entries(vars)) {
    const found = existing.filter((a) => a.name === name);
    if (found.length > 0) {
      for (const a of found) if (a.value !== value) edits.push({ offset: a.valueStart, length: a.valueEnd - a.valueStart, text: value });
    } else {
      appended.push(`${kind === 'shell' ? 'export ' : ''}${name}=${value}`);
    }
  }
  if (appended.length > 0) {
    const lead = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    edits.push({ offset: text.length, length: 0, text: `${lead}${appended.join('\n')}\n` });
  }
  return edits;
}

/**
 * Sets variables in the `env` of one launch configuration (by name) or task (by label),
 * creating the file's skeleton, the entry or its env as needed. Comments and formatting
 * elsewhere in the file are kept.
 */
export function setJsonEnv(text: string, kind: 'launch' | 'tasks', entryName: string, vars: Record<string, string>): TextEdit[] {
  const list = kind === 'launch' ? 'configurations' : 'tasks';
  const keyName = kind === 'launch' ? 'name' : 'label';
  const envPath = kind === 'launch' ? ['env'] : ['options', 'env'];
  const format = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };
  let current = text.trim().length > 0 ? text : `{\n  "version": "${kind === 'launch' ? '0.2.0' : '2.0.0'}",\n  "${list}": []\n}\n`;
  const root = parseTree(current);
  const items = root ? findNodeAtLocation(root, [list]) : undefined;
  let index = (items?.children ?? []).findIndex((item) => findNodeAtLocation(item, [keyName])?.value === entryName);
  if (index === -1) {
    index = items?.children?.length ?? 0;
    const entry = kind === 'launch' ? { name: entryName, type: 'cppdbg', request: 'launch', program: '${workspaceFolder}/a.out', env: {} } : { label: entryName, type: 'shell', command: 'echo', options: { env: {} } };
    current = applyEdits(current, modify(current, [list, index], entry, { ...format, isArrayInsertion: true }));
  }
  for (const [name, value] of Object.entries(vars)) {
    current = applyEdits(current, modify(current, [list, index, ...envPath, name], value, format));
  }
  // One replacement of the whole text keeps the edit simple to apply and to review as a diff.
  return current === text ? [] : [{ offset: 0, length: text.length, text: current }];
}

export function applyTextEdits(text: string, edits: TextEdit[]): string {
  return [...edits].sort((a, b) => b.offset - a.offset).reduce((t, e) => t.slice(0, e.offset) + e.text + t.slice(e.offset + e.length), text);
}
