/**
 * "SDMA Lens: Suggest Settings": advice for a run, then the user picks which settings to
 * keep and where they go: shell exports on the clipboard, a .env file, a launch
 * configuration or a task. File changes are made in an editor and left unsaved for the user
 * to review and save (reviewableEdit.ts); nothing is overwritten silently.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Advice, Recommendation } from '../../core/advice/advice';
import { adviseFromRun } from '../../core/advice/advice';
import { adviceText } from '../../core/advice/adviceText';
import { adviceFor } from '../../core/advice/fronts';
import type { TextEdit } from '../../core/advice/envFiles';
import {
  findJsonAssignments,
  notWritten,
  replacementEdits,
  setJsonEnv,
  setLineVariables,
  simulatedNote,
  taskLabels,
} from '../../core/advice/envFiles';
import { knob } from '../../core/advice/knobs';
import { launchEntries, setLaunchEnv } from '../../core/advice/launchEnv';
import { checkedAssignments, shellComment, shellExport, terminalLine } from '../../core/text';
import { openKnobFile, reviewableEdit } from '../reviewableEdit';
import type { Run } from '../../core/run';
import { openAdvisedRun } from '../../core/runs/refinements';
import { RunStore } from '../../core/runs/runStore';
import { adviceSettings, runsFolder } from '../settings';
import { SweepPanel } from '../sweepPanel';
import { reportError } from './guards';
import type { RunDeps } from '../runWithProgress';

export type ApplyTarget = 'clipboard' | 'dotenv' | 'launch' | 'tasks';

/** Scripted use: which run, and (optionally) where to apply without asking. */
export interface SuggestArgs {
  runId?: string;
  /** The endpoint pair to advise on (-1 = host): the one the panel shows; default the run's first GPU → GPU pair. */
  pair?: { src: number; dst: number };
  apply?: { target: ApplyTarget; file?: string; entry?: string; knobs?: string[] };
}

export interface SuggestResult {
  runId: string;
  advice: Advice;
  applied?: ApplyTarget;
}

const NEW_ENTRY = 'SDMA Lens';

async function resolveRun(deps: RunDeps, runId: string | undefined): Promise<Run | undefined> {
  const store = new RunStore(runsFolder(deps.context.globalStorageUri));
  const id =
    runId ??
    SweepPanel.activeRunId() ??
    (await store.list()).find((r) => r.status !== 'corrupt' && r.header?.command === 'sweep')?.id;
  if (!id) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'SDMA Lens: no sweep runs yet. Run "SDMA Lens: Run Transfer Sweep" first; advice comes from its crossovers.',
      ),
    );
    return undefined;
  }
  // The run as the panel shows it: a refined sweep with its refined points.
  return openAdvisedRun(store, id);
}

/** A pair from a command's arguments when it is one (two endpoint indices, -1 for host), else undefined. */
function endpointPairOf(raw: unknown): { src: number; dst: number } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { src, dst } = raw as { src?: unknown; dst?: unknown };
  const ok = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= -1 && (x as number) <= 1023;
  return ok(src) && ok(dst) ? { src, dst } : undefined;
}

export async function suggestSettingsCommand(deps: RunDeps, args?: SuggestArgs): Promise<SuggestResult | undefined> {
  try {
    const run = await resolveRun(deps, typeof args?.runId === 'string' ? args.runId : undefined);
    if (!run) return undefined;
    // Worded for the extension: options named as its settings.
    const pair = endpointPairOf(args?.pair);
    const advice = adviceFor(adviseFromRun(run, { ...adviceSettings(), ...(pair ? { pair } : {}) }), 'extension');
    deps.log.info(`advice for run ${run.header.id}:\n${adviceText(advice, { front: 'extension' })}`);
    const withValues = advice.recommendations.filter((r) => r.value !== undefined);
    let chosen: Recommendation[];
    let target: ApplyTarget | undefined;
    if (args?.apply) {
      chosen = args.apply.knobs ? withValues.filter((r) => args.apply!.knobs!.includes(r.knob)) : withValues;
      target = args.apply.target;
    } else {
      const picked = await pickRecommendations(advice, withValues);
      if (!picked) return { runId: run.header.id, advice };
      chosen = picked;
      target = await pickTarget();
    }
    if (!target || chosen.length === 0) return { runId: run.header.id, advice };
    // Only catalog knobs with values of their type are written, from the typed value; the rest is said, not written.
    const checked = checkedAssignments(Object.fromEntries(chosen.map((r) => [r.knob, r.value!])), knob);
    if (checked.refused.length > 0)
      void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', notWritten(checked.refused)));
    if (Object.keys(checked.vars).length === 0) return { runId: run.header.id, advice };
    // Values from the simulated node say so in the file, as a comment wherever the format takes one.
    const note = advice.simulated ? simulatedNote(run.header.id) : undefined;
    const applied = await applyVars(target, checked.vars, args?.apply?.file, args?.apply?.entry, note);
    return { runId: run.header.id, advice, ...(applied ? { applied: target } : {}) };
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('Settings could not be suggested'), err);
    return undefined;
  }
}

async function pickRecommendations(
  advice: Advice,
  withValues: Recommendation[],
): Promise<Recommendation[] | undefined> {
  // The advice's explanations and evidence are the core's (shared with the CLI): shown as they are,
  // on one line each with controls and bidi marks escaped (they quote a run's text, e.g. a library version).
  const summary = terminalLine(advice.focus.map((c) => c.explanation).join(' '));
  const missing = advice.recommendations.filter((r) => r.value === undefined);
  if (missing.length > 0)
    void vscode.window.showWarningMessage(
      vscode.l10n.t('SDMA Lens: {0}', terminalLine(missing.map((r) => r.evidence).join(' '))),
    );
  const items = withValues.map((r) => ({
    label: terminalLine(`${r.knob}=${r.value}`),
    description: r.confidence === 'uncertain' ? vscode.l10n.t('uncertain') : r.basis,
    detail: terminalLine(r.evidence),
    picked: r.confidence !== 'none',
    recommendation: r,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: advice.simulated
      ? vscode.l10n.t('SDMA Lens: settings (SIMULATED node: for illustration)')
      : vscode.l10n.t('SDMA Lens: settings'),
    placeHolder: summary.slice(0, 300) || vscode.l10n.t('Choose the settings to apply'),
    canPickMany: true,
    matchOnDetail: true,
  });
  return picked?.map((p) => p.recommendation);
}

async function pickTarget(): Promise<ApplyTarget | undefined> {
  const items: (vscode.QuickPickItem & { target: ApplyTarget })[] = [
    { target: 'clipboard', label: vscode.l10n.t('$(clippy) Copy as shell exports') },
    {
      target: 'dotenv',
      label: vscode.l10n.t('$(file) Write to a .env file'),
      description: vscode.l10n.t('reviewable edit'),
    },
    {
      target: 'launch',
      label: vscode.l10n.t('$(debug-alt) Add to a launch configuration'),
      description: vscode.l10n.t('{0}, reviewable edit', '.vscode/launch.json'),
    },
    {
      target: 'tasks',
      label: vscode.l10n.t('$(tasklist) Add to a task'),
      description: vscode.l10n.t('{0}, reviewable edit', '.vscode/tasks.json'),
    },
  ];
  return (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Where should the settings go?') }))?.target;
}

function workspaceRoot(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error(vscode.l10n.t('open a folder first: settings are written into the workspace'));
  return folder.uri;
}

async function readText(uri: vscode.Uri): Promise<{ text: string; exists: boolean }> {
  const doc = await openKnobFile(uri);
  return doc ? { text: doc.getText(), exists: true } : { text: '', exists: false };
}

async function chooseEntry(
  kind: 'launch' | 'tasks',
  text: string,
  given: string | undefined,
): Promise<string | undefined> {
  if (given) return given;
  // Parsed, not matched: a `name` inside an `environment` list or a compound is no configuration.
  const items =
    kind === 'launch'
      ? launchEntries(text).map((e) => ({
          label: e.name,
          description: e.env
            ? e.type
            : vscode.l10n.t('{0}: environment format unknown, nothing is written', e.type ?? vscode.l10n.t('no type')),
        }))
      : taskLabels(text).map((label) => ({ label }));
  const unique = items.filter((item, i) => items.findIndex((o) => o.label === item.label) === i);
  if (unique.length === 0) return NEW_ENTRY;
  const fresh = { label: vscode.l10n.t('$(add) New: {0}', NEW_ENTRY) };
  const picked = await vscode.window.showQuickPick([...unique, fresh], {
    title: kind === 'launch' ? vscode.l10n.t('Which launch configuration?') : vscode.l10n.t('Which task?'),
  });
  // The quick pick hands back the item given: the new entry is known by identity, whatever its label says.
  return picked ? (picked === fresh ? NEW_ENTRY : picked.label) : undefined;
}

/**
 * Applies the variables as a WorkspaceEdit that VS Code shows for review before it is made.
 * `note` (a simulated run's) becomes a comment line: `#` in exports, .env and shell files, `//`
 * in launch.json and tasks.json (JSONC to VS Code) or a .jsonc file; never in plain JSON.
 */
async function applyVars(
  target: ApplyTarget,
  vars: Record<string, string>,
  file?: string,
  entry?: string,
  note?: string,
): Promise<boolean> {
  if (target === 'clipboard') {
    const text = [
      ...(note !== undefined ? [shellComment(note)] : []),
      ...Object.entries(vars).map(([k, v]) => shellExport(k, v, knob)),
    ].join('\n');
    await vscode.env.clipboard.writeText(`${text}\n`);
    void vscode.window.showInformationMessage(
      vscode.l10n.t('SDMA Lens: {0} exports copied to the clipboard.', Object.keys(vars).length),
    );
    return true;
  }
  const root = workspaceRoot();
  const relative = file ?? (target === 'dotenv' ? '.env' : `.vscode/${target === 'launch' ? 'launch' : 'tasks'}.json`);
  if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..'))
    throw new Error(vscode.l10n.t('"{0}" must be a path inside the workspace', terminalLine(relative)));
  const uri = vscode.Uri.joinPath(root, relative);
  const { text, exists } = await readText(uri);
  let edits: TextEdit[];
  if (target === 'dotenv') {
    edits = setLineVariables(text, vars, relative.endsWith('.sh') ? 'shell' : 'dotenv', note);
  } else {
    const jsonc = /(^|[\\/])(launch|tasks)\.json$|\.jsonc$/.test(relative);
    if (
      exists &&
      text.trim() &&
      findJsonAssignments(text).length === 0 &&
      !text.includes(target === 'launch' ? '"configurations"' : '"tasks"')
    ) {
      throw new Error(vscode.l10n.t('{0} does not look like a {1}.json file', relative, target));
    }
    const name = await chooseEntry(target, text, entry);
    if (!name) return false;
    if (target === 'launch') {
      // Each debugger reads its own shape (launchEnv.ts); an unknown one is told, not written into.
      const result = setLaunchEnv(text, name, vars, jsonc ? note : undefined);
      if (!result.written) {
        void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', result.description));
        return false;
      }
      edits = replacementEdits(text, result.text);
      if (edits.length > 0) return reviewableEdit(uri, edits, result.description);
    } else {
      edits = setJsonEnv(text, target, name, vars, jsonc ? note : undefined);
    }
  }
  if (edits.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('SDMA Lens: {0} already has these values.', relative));
    return true;
  }
  return reviewableEdit(uri, edits, vscode.l10n.t('{0} settings written', Object.keys(vars).length));
}
