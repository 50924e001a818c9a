/**
 * Settings that choose what runs or where (Profile's program, arguments, working folder and
 * environment; the SSH target), when their value comes from the workspace's own settings
 * (`.vscode/settings.json` or a `.code-workspace` file, which a repository can carry), are
 * shown to the user and confirmed before use, once per workspace and set of values: the
 * confirmation is kept in the workspace's state under a sha256 of the setting names and their
 * values, so a changed value asks again. Values from the user's own settings are not asked
 * about.
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';

/** One setting whose effective value the workspace chose. */
export interface ConsentEntry {
  /** The full setting name, e.g. `sdmaLens.profile.program`. */
  setting: string;
  /** Where the value came from. */
  scope: 'workspace' | 'workspaceFolder';
  /** The value as the workspace wrote it (for an object: the keys the workspace adds or changes). */
  value: unknown;
}

/** The parts of `WorkspaceConfiguration.inspect()` that say where a value came from. */
export interface InspectedValue {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** Thrown where a value needing confirmation was not confirmed: nothing was run or connected. */
export class ConsentDeclined extends Error {
  constructor(what: string, from = "this workspace's settings") {
    super(`${what} from ${from} was not confirmed; nothing was run`);
    this.name = 'ConsentDeclined';
  }
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** The value with object keys sorted at every level, so equal values serialize equally. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/**
 * What the workspace chose of one setting, from its `inspect()` result: nothing when the
 * effective value comes from the user's settings or the default, or when the workspace's value
 * is the same as the one beneath it. The folder's value wins over the workspace's, as VS Code
 * reads them. With `object: true` (a map such as an environment, which VS Code merges across
 * levels) the entry holds the keys the workspace levels add or change.
 */
export function workspaceEntries(
  setting: string,
  seen: InspectedValue | undefined,
  options: { object?: boolean } = {},
): ConsentEntry[] {
  if (!seen) return [];
  const scope =
    seen.workspaceFolderValue !== undefined
      ? 'workspaceFolder'
      : seen.workspaceValue !== undefined
        ? 'workspace'
        : undefined;
  if (!scope) return [];
  if (options.object) {
    const beneath = {
      ...(isPlainObject(seen.defaultValue) ? seen.defaultValue : {}),
      ...(isPlainObject(seen.globalValue) ? seen.globalValue : {}),
    };
    const ours = {
      ...(isPlainObject(seen.workspaceValue) ? seen.workspaceValue : {}),
      ...(isPlainObject(seen.workspaceFolderValue) ? seen.workspaceFolderValue : {}),
    };
    const added = Object.fromEntries(
      Object.entries(ours).filter(([k, v]) => !(k in beneath) || !sameValue(beneath[k], v)),
    );
    // A workspace value that is no object replaces the merged one outright: it counts whole.
    const replaced = [seen.workspaceValue, seen.workspaceFolderValue].find((v) => v !== undefined && !isPlainObject(v));
    if (replaced !== undefined) return [{ setting, scope, value: replaced }];
    return Object.keys(added).length > 0 ? [{ setting, scope, value: added }] : [];
  }
  const value = scope === 'workspaceFolder' ? seen.workspaceFolderValue : seen.workspaceValue;
  const beneath = seen.globalValue !== undefined ? seen.globalValue : seen.defaultValue;
  return sameValue(value, beneath) ? [] : [{ setting, scope, value }];
}

/**
 * The key a confirmation is kept under: sha256 of what is asked about (`kind`, e.g. "profile"),
 * where (`place`, e.g. the folder whose program runs), and each setting name with its value,
 * in a fixed order. Where a value came from does not count, only what it is.
 */
export function consentKey(kind: string, place: string, entries: readonly ConsentEntry[]): string {
  const values = [...entries]
    .sort((a, b) => (a.setting < b.setting ? -1 : a.setting > b.setting ? 1 : 0))
    .map((e) => [e.setting, canonical(e.value)]);
  return createHash('sha256')
    .update(JSON.stringify([kind, place, values]))
    .digest('hex');
}

// C0 and C1 controls, DEL, and the characters that reorder or hide text: the bidirectional
// embeddings, overrides and isolates, the directional marks, zero-width characters, the line and
// paragraph separators, and the byte order mark.
// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const MAX_SHOWN = 2000;

/**
 * `text` as data in a dialog: every control, bidirectional and invisible character written as
 * an escape (`\x1b`, `\u202e`), so what is shown is what the characters are. A longer text is
 * cut, and says how much was left out.
 */
export function showable(text: string): string {
  const escaped = text.replace(UNSHOWABLE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  if (escaped.length <= MAX_SHOWN) return escaped;
  return `${escaped.slice(0, MAX_SHOWN)}… (${escaped.length - MAX_SHOWN} more characters)`;
}

/** One line per entry, `sdmaLens.profile.args = ["-c","make"]`, escaped for showing. */
export function entryLines(entries: readonly ConsentEntry[]): string[] {
  return entries.map((e) => `${e.setting} = ${showable(JSON.stringify(e.value) ?? String(e.value))}`);
}

const STATE_KEY = 'sdmaLens.workspaceConsent';
const KEEP = 64;

export interface ConsentRequest {
  /** What is asked about ("profile", "target"): part of the key. */
  kind: string;
  /** Where it applies (a folder's URI, or "" for the window): part of the key. */
  place: string;
  /** The workspace's values; none: nothing to ask. */
  entries: ConsentEntry[];
  /** The dialog's sentence (localized by the caller). */
  message: string;
  /** Lines shown under the values, e.g. the command line they make (escaped by the caller). */
  more?: string[];
  /** The button that accepts ("Run", "Connect"); the modal's own Cancel declines. */
  accept: string;
  /** The line above the values (localized by the caller); default: they are set in this workspace's settings. */
  intro?: string;
}

/** The confirmations of one workspace, kept in its state. */
export class WorkspaceConsent {
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private accepted(): string[] {
    const kept = this.state.get<unknown>(STATE_KEY);
    return Array.isArray(kept) ? kept.filter((k): k is string => typeof k === 'string') : [];
  }

  has(request: Pick<ConsentRequest, 'kind' | 'place' | 'entries'>): boolean {
    return (
      request.entries.length === 0 || this.accepted().includes(consentKey(request.kind, request.place, request.entries))
    );
  }

  /** Keeps values the user chose themselves (e.g. written to the settings from their own pick) as confirmed. */
  async remember(request: Pick<ConsentRequest, 'kind' | 'place' | 'entries'>): Promise<void> {
    if (request.entries.length === 0) return;
    const key = consentKey(request.kind, request.place, request.entries);
    await this.state.update(STATE_KEY, [key, ...this.accepted().filter((k) => k !== key)].slice(0, KEEP));
  }

  /**
   * True when there is nothing to ask, or the same values were confirmed before in this
   * workspace, or the user confirms them now in a modal dialog listing them. The same question
   * asked twice at once shows one dialog.
   */
  confirm(request: ConsentRequest): Promise<boolean> {
    if (this.has(request)) return Promise.resolve(true);
    const key = consentKey(request.kind, request.place, request.entries);
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.ask(request).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  }

  private async ask(request: ConsentRequest): Promise<boolean> {
    const lines = entryLines(request.entries);
    const detail = [
      request.intro ?? vscode.l10n.t('Set in the settings of this workspace:'),
      ...lines,
      ...(request.more && request.more.length > 0 ? ['', ...request.more] : []),
      '',
      vscode.l10n.t('Accept only if you trust these values. You are asked again when they change.'),
    ].join('\n');
    const choice = await vscode.window.showWarningMessage(request.message, { modal: true, detail }, request.accept);
    const settings = request.entries.map((e) => e.setting).join(', ');
    if (choice !== request.accept) {
      this.log.info(`not confirmed: ${settings} from the workspace settings`);
      return false;
    }
    await this.remember(request);
    this.log.info(`confirmed for this workspace: ${settings} from the workspace settings`);
    return true;
  }
}

const shared = new WeakMap<vscode.Memento, WorkspaceConsent>();

/** The one set of confirmations of this workspace (its state lives in `context.workspaceState`). */
export function workspaceConsent(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): WorkspaceConsent {
  let consent = shared.get(context.workspaceState);
  if (!consent) {
    consent = new WorkspaceConsent(context.workspaceState, log);
    shared.set(context.workspaceState, consent);
  }
  return consent;
}
