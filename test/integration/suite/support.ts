/** Shared by the suites that run inside the extension host. */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FleetHostMessage } from '../../../src/core/fleet/fleetMessages';
import type { CollectiveHostMessage } from '../../../src/core/collective/collectiveMessages';
import type { HostMessage } from '../../../src/core/sweep/sweepMessages';
import type { MatrixHostMessage } from '../../../src/core/matrix/matrixMessages';
import type { TimelineMeta } from '../../../src/core/timeline/timelineModel';
import type { RunsViewProvider } from '../../../src/extension/runsView';
import type { RunDeps } from '../../../src/extension/runWithProgress';

export const EXTENSION_ID = 'sdma-lens.sdma-lens';

/** What `activate` returns. */
export interface SdmaLensApi {
  deps: RunDeps;
  runsView: RunsViewProvider;
  /** VS Code's restore of a sweep panel after a reload: the page's saved state names the run. */
  restoreSweepPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  sweepPanel(runId: string): { lastDelivered: HostMessage | undefined; panel: vscode.WebviewPanel } | undefined;
  matrixPanel(
    runId: string,
  ): { lastDelivered: MatrixHostMessage | undefined; panel: vscode.WebviewPanel; dispose(): void } | undefined;
  timelinePanel(key: string): TimelinePanelView | undefined;
  collectivePanel(
    runId: string,
  ): { lastDelivered: CollectiveHostMessage | undefined; panel: vscode.WebviewPanel; dispose(): void } | undefined;
  fleetPanel(
    id: string,
  ): { lastDelivered: FleetHostMessage | undefined; panel: vscode.WebviewPanel; dispose(): void } | undefined;
}

/** What the tests read of an open timeline panel (they cannot see inside the webview). */
export interface TimelinePanelView {
  panel: vscode.WebviewPanel;
  meta: TimelineMeta;
  delivered: boolean;
  appliedFilter: { filter: string; kept: number } | undefined;
  /**
   * A host-held timeline (HOST_HELD_EVENTS or more, read and indexed by an engine process the
   * extension host starts): its count, the engine's process id, whether the file was surveyed
   * (the overview's index) and the index is built, whether the panel still holds the engine, and
   * the engine's answers relayed so far by type (`overview`, `index`, `lod`, ...); undefined otherwise.
   */
  hostHeldState:
    | {
        count: number;
        pid: number | undefined;
        surveyed: boolean;
        indexed: boolean;
        running: boolean;
        answers: Readonly<Record<string, number>>;
      }
    | undefined;
  /** Why the timeline could not be read or opened, as its page says. */
  loadFailure: string | undefined;
}

export async function activeApi(): Promise<SdmaLensApi> {
  const ext = vscode.extensions.getExtension<SdmaLensApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed in this window`);
  return ext.isActive ? ext.exports : await ext.activate();
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/**
 * The test launch points `sdmaLens.helperPath` at a wrapper script that appends "PID ARGS" to
 * invocations.log beside it and then execs the real helper (same PID), so tests see every
 * helper process the extension started.
 */
export function invocations(): { pid: number; args: string[] }[] {
  const helper = vscode.workspace.getConfiguration('sdmaLens').get<string>('helperPath') ?? '';
  const log = path.join(path.dirname(helper), 'invocations.log');
  if (!helper || !existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, ...args] = line.split(' ');
      return { pid: Number(pid), args };
    });
}

export function sweepInvocations(): { pid: number; args: string[] }[] {
  return invocations().filter((i) => i.args[0] === 'sweep');
}

function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

export { processGroupMembers } from '../../support/process';

/** Gone, or a zombie its parent has not reaped yet: either way it runs nothing. */
export function processGone(pid: number): boolean {
  const state = processState(pid);
  return state === undefined || state === 'Z';
}

/** The workspace's runs folder (the default setting). */
export function runsFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder');
  return path.join(folder.uri.fsPath, '.sdma-lens', 'runs');
}

export function readRunFile(id: string): { type: string; [key: string]: unknown }[] {
  return readFileSync(path.join(runsFolder(), id, 'run.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string });
}

/**
 * Records calls to a `vscode.window` function and still calls it. Tests load as part of the
 * extension under development, so they share its `vscode` API object and see its calls.
 */
export function spyOnWindow<
  K extends 'showErrorMessage' | 'showInformationMessage' | 'showWarningMessage' | 'withProgress',
>(name: K) {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = window[name]!;
  const calls: unknown[][] = [];
  window[name] = (...args: unknown[]) => {
    calls.push(args);
    return original.apply(vscode.window, args);
  };
  return {
    calls,
    restore: () => {
      window[name] = original;
    },
  };
}

/** A small, fast sweep on the simulated node (sizes in bytes). */
export const SMALL_SWEEP = { backend: 'sim' as const, sizes: [4096, 65536, 1 << 20, 16 << 20], cus: [8, 64], iters: 3 };

type ViewOf<M, K> = M extends { type: K; view: infer V } ? V : never;

/** Waits until a panel's page has received a `type` message of a finished run (status ok); its view. */
export function finishedView<M extends { type: string }, K extends M['type']>(
  what: string,
  panel: { lastDelivered: M | undefined },
  type: K,
): Promise<ViewOf<M, K>> {
  return waitFor(what, () => {
    const m = panel.lastDelivered as { type: string; view?: { status?: string } } | undefined;
    return m?.type === type && m.view?.status === 'ok' ? (m.view as ViewOf<M, K>) : undefined;
  });
}

/** Writes `text` to NAME in the workspace folder and shows it in an editor while `body` runs; closes and removes it after. */
export async function withSourceFile(
  name: string,
  text: string,
  body: (doc: vscode.TextDocument, folder: string) => Promise<void>,
): Promise<void> {
  const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const file = path.join(folder, name);
  writeFileSync(file, text);
  try {
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    await body(doc, folder);
  } finally {
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    rmSync(file, { force: true });
  }
}

/** The code lenses of a document, as VS Code's provider command lists them. */
export async function codeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)) ?? [];
}

/** The titles of a document's code lenses. */
export async function lensTitles(doc: vscode.TextDocument): Promise<string[]> {
  return (await codeLenses(doc)).map((l) => l.command?.title ?? '');
}

/**
 * Runs the command of the lens whose title matches `title`: the timeline panel it opened on
 * the run mode of `runId`, once its page applied the kernel filter the lens gave.
 */
export async function timelineFromLens(doc: vscode.TextDocument, title: RegExp, runId: string) {
  const api = await activeApi();
  const lens = (await codeLenses(doc)).find((l) => title.test(l.command?.title ?? ''));
  assert.ok(lens?.command, 'no summary lens');
  const opened = await vscode.commands.executeCommand<{ meta: TimelineMeta } | undefined>(
    lens.command.command,
    ...(lens.command.arguments ?? []),
  );
  assert.ok(opened, 'the lens opened a timeline panel');
  const key = opened.meta.key;
  assert.ok(key.startsWith(`${runId}/run-mode?filter=`), key);
  const panel = api.timelinePanel(key);
  assert.ok(panel, `no open timeline panel for ${key}`);
  const applied = await waitFor('the page to apply the kernel filter', () => panel.delivered && panel.appliedFilter);
  return { command: lens.command.command, meta: opened.meta, panel, applied };
}

/**
 * Answers modal `showWarningMessage` dialogs in place of the user: `answer` gets the message,
 * the options (`detail` holds what the dialog lists) and the buttons, and returns the button
 * to press (undefined: Cancel). Each modal call is recorded; other warnings are shown as usual.
 * `answer` can be replaced between steps.
 */
export function answerModals(
  answer: (message: string, options: vscode.MessageOptions, buttons: string[]) => string | undefined,
) {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = window.showWarningMessage!;
  const state = { answer, calls: [] as { message: string; detail: string; buttons: string[] }[] };
  window.showWarningMessage = (...args: unknown[]) => {
    const [message, options, ...rest] = args;
    if (typeof options === 'object' && options !== null && (options as vscode.MessageOptions).modal === true) {
      const buttons = rest.map((b) => (typeof b === 'string' ? b : String((b as { title?: unknown }).title)));
      state.calls.push({
        message: String(message),
        detail: String((options as vscode.MessageOptions).detail ?? ''),
        buttons,
      });
      return Promise.resolve(state.answer(String(message), options as vscode.MessageOptions, buttons));
    }
    return original.apply(vscode.window, args);
  };
  return Object.assign(state, {
    restore: () => {
      window.showWarningMessage = original;
    },
  });
}
