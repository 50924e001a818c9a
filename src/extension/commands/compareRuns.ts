/**
 * "SDMA Lens: Compare Runs": two saved runs of one kind (sweeps, matrices or collective
 * sweeps) compared point by point against their noise (core/compare/compare.ts), in a panel
 * of their own: both runs' curves overlaid, the ratio B/A with its interval below, and the
 * verdicts in a table. The runs are picked (A, the baseline, then B among runs of the same
 * command) or named by id for scripted use.
 *
 * The panel is not a run view (it shows two runs, keyed by both ids): like the timeline it
 * is built on the panels' shared plumbing, `PanelPage` in runViewPanel.ts (HTML, CSP, nonce,
 * every page message validated). Its page keeps both ids in its state, so a serializer can
 * reopen it after a reload (`reviveComparePanel`).
 */
import * as vscode from 'vscode';
import type { Comparison } from '../../core/compare/compare';
import { CompareError, compareRuns } from '../../core/compare/compare';
import type { CompareHostMessage, CompareWebviewMessage } from '../../core/compare/compareMessages';
import { parseCompareWebviewMessage } from '../../core/compare/compareMessages';
import { comparePageView } from '../../core/compare/compareView';
import type { Run } from '../../core/run';
import { tabLabel } from '../../core/runs/runLabel';
import type { RunStore, RunSummary } from '../../core/runs/runStore';
import { compareTableModel } from '../../core/compare/comparePanelTable';
import { escapeControls } from '../../core/text';
import { PanelPage, answerTableMessage, isTableMessage } from '../runViewPanel';
import type { RunDeps } from '../runWithProgress';
import { storeOf } from '../runWithProgress';
import { panelOptions } from '../webviewOptions';
import { reportError } from './guards';
import { withOpenProgress } from '../openProgress';

export const COMPARE_VIEW_TYPE = 'sdmaLens.compare';

const COMPARE_PAGE = { asset: 'compare', parse: parseCompareWebviewMessage };

/** Runs whose points can be compared. */
const COMPARABLE = new Set(['sweep', 'matrix', 'collective']);
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

export interface CompareRunsArgs {
  /** The baseline's run id. */
  a?: string;
  /** The run compared with it. */
  b?: string;
  /** The run-to-run tolerance (0 <= tolerance < 1); without it or baselines, the default (docs/COMPARE.md). */
  tolerance?: number;
  /** Run ids of A's repeats: the run-to-run tolerance is estimated from them and A. */
  baselines?: string[];
}

/** The page's state: both run ids, a given tolerance or the baseline runs, and the curve it shows. */
interface CompareState {
  a?: unknown;
  b?: unknown;
  tolerance?: unknown;
  baselines?: unknown;
}

export class ComparePanel extends PanelPage<CompareWebviewMessage> {
  private static readonly open = new Map<string, ComparePanel>();
  /** The last view VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: CompareHostMessage | undefined;

  static keyOf(a: string, b: string): string {
    return `${a}\n${b}`;
  }

  static forKey(a: string, b: string): ComparePanel | undefined {
    return ComparePanel.open.get(ComparePanel.keyOf(a, b));
  }

  static show(extensionUri: vscode.Uri, comparison: Comparison, log: vscode.LogOutputChannel): ComparePanel {
    const existing = ComparePanel.forKey(comparison.a.id, comparison.b.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(comparison);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      COMPARE_VIEW_TYPE,
      titleOf(comparison),
      vscode.ViewColumn.Active,
      panelOptions(extensionUri),
    );
    return new ComparePanel(panel, extensionUri, comparison, log);
  }

  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    comparison: Comparison,
    log: vscode.LogOutputChannel,
  ): ComparePanel {
    panel.webview.options = panelOptions(extensionUri);
    return new ComparePanel(panel, extensionUri, comparison, log);
  }

  private constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private comparison: Comparison,
    log: vscode.LogOutputChannel,
  ) {
    super(panel, extensionUri, log, COMPARE_PAGE, titleOf(comparison));
    ComparePanel.open.set(ComparePanel.keyOf(comparison.a.id, comparison.b.id), this);
  }

  get shown(): Comparison {
    return this.comparison;
  }

  /** The same two runs compared again (another tolerance): the page redraws. */
  update(comparison: Comparison): void {
    this.comparison = comparison;
    this.post();
  }

  private post(): void {
    if (this.disposed || !this.ready) return;
    const message: CompareHostMessage = { type: 'compare-view', view: comparePageView(this.comparison) };
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  protected onReady(): void {
    this.post();
  }

  protected handle(message: Exclude<CompareWebviewMessage, { type: 'ready' | 'webview-error' }>): void {
    if (isTableMessage(message)) {
      answerTableMessage(
        message,
        compareTableModel(comparePageView(this.comparison)),
        `compare-${this.comparison.a.id}-${this.comparison.b.id}`,
        this.log,
      );
      return;
    }
    switch (message.type) {
      case 'open-run':
        // Through Open Run, so each kind of run opens where it is drawn.
        void vscode.commands.executeCommand(
          'sdmaLens.openRun',
          message.side === 'a' ? this.comparison.a.id : this.comparison.b.id,
        );
        break;
      default: {
        const never: never = message;
        this.log.warn(`unhandled compare panel message ${JSON.stringify(never)}`);
      }
    }
  }

  protected unlist(): void {
    ComparePanel.open.delete(ComparePanel.keyOf(this.comparison.a.id, this.comparison.b.id));
  }
}

function titleOf(c: Comparison): string {
  // The time and backend as the run panels' tabs name them (a simulated run "sim", never "auto").
  const label = (r: Comparison['a']) => tabLabel({ id: r.id, createdAt: r.createdAt, simulated: r.simulated });
  return vscode.l10n.t('Compare {0} ↔ {1}', label(c.a), label(c.b));
}

interface RunItem extends vscode.QuickPickItem {
  id: string;
}

function item(s: RunSummary): RunItem {
  const when = s.header ? new Date(s.header.createdAt).toLocaleString() : '';
  const node = s.header?.target.kind === 'ssh' ? (s.header.target.host ?? 'ssh') : undefined;
  const source = s.header?.source ? vscode.l10n.t('imported from {0}', s.header.source.tool) : undefined;
  return {
    label: `${s.header?.command ?? 'run'} ${when}`,
    description: [s.status, node, source].filter(Boolean).join(' · '),
    detail: s.id,
    id: s.id,
  };
}

/** A, then B among the saved runs of A's command (the only ones with points in common). */
async function pickRuns(store: RunStore): Promise<[string, string] | undefined> {
  const runs = (await store.list()).filter(
    (r) => r.status !== 'corrupt' && r.header && COMPARABLE.has(r.header.command),
  );
  if (runs.length < 2) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'SDMA Lens: comparing needs two saved sweeps, matrices or collective sweeps in {0}; found {1}.',
        store.root,
        runs.length,
      ),
    );
    return undefined;
  }
  const a = await vscode.window.showQuickPick(runs.map(item), {
    title: vscode.l10n.t('SDMA Lens: Compare Runs (1/2): the baseline, A'),
    matchOnDetail: true,
  });
  if (!a) return undefined;
  const command = runs.find((r) => r.id === a.id)?.header?.command;
  const others = runs.filter((r) => r.id !== a.id && r.header?.command === command);
  if (others.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('SDMA Lens: there is no other {0} run to compare {1} with.', String(command), a.id),
    );
    return undefined;
  }
  const b = await vscode.window.showQuickPick(others.map(item), {
    title: vscode.l10n.t('SDMA Lens: Compare Runs (2/2): the {0} run to compare with {1}, B', String(command), a.id),
    matchOnDetail: true,
  });
  return b ? [a.id, b.id] : undefined;
}

interface Checked {
  a?: string;
  b?: string;
  tolerance?: number;
  baselines?: string[];
}

function checkArgs(args: CompareRunsArgs | undefined): Checked {
  const id = (x: unknown, name: string) => {
    if (x === undefined) return undefined;
    if (typeof x !== 'string' || !RUN_ID.test(x))
      throw new Error(vscode.l10n.t('{0} must be a run id (letters, digits, ".", "_", "-")', name));
    return x;
  };
  const tolerance = args?.tolerance;
  if (tolerance !== undefined && (typeof tolerance !== 'number' || !(tolerance >= 0 && tolerance < 1)))
    throw new Error(vscode.l10n.t('tolerance must be a fraction from 0 to below 1'));
  const baselines: unknown = args?.baselines;
  if (baselines !== undefined && !Array.isArray(baselines))
    throw new Error(vscode.l10n.t('{0} must be a run id (letters, digits, ".", "_", "-")', 'each of baselines'));
  const a = id(args?.a, 'a');
  const b = id(args?.b, 'b');
  if ((a === undefined) !== (b === undefined))
    throw new Error(vscode.l10n.t('name both runs, a and b, or neither to pick them'));
  return {
    ...(a !== undefined ? { a } : {}),
    ...(b !== undefined ? { b } : {}),
    ...(tolerance !== undefined ? { tolerance } : {}),
    ...(Array.isArray(baselines) && baselines.length > 0
      ? { baselines: baselines.map((x: unknown) => id(x ?? null, 'each of baselines')!) }
      : {}),
  };
}

async function openAll(deps: RunDeps, store: RunStore, ids: string[]): Promise<Run[]> {
  const runs = await Promise.all(ids.map((id) => withOpenProgress(store.fileOf(id), id, (o) => store.open(id, o))));
  for (const run of runs) for (const p of run.problems) deps.log.warn(`run ${run.header.id}: ${p}`);
  return runs;
}

/** A and B compared with the tolerance or baseline runs checked. */
async function compareChecked(
  deps: RunDeps,
  store: RunStore,
  a: string,
  b: string,
  checked: Checked,
): Promise<Comparison> {
  const [ra, rb, ...baselines] = await openAll(deps, store, [a, b, ...(checked.baselines ?? [])]);
  return compareRuns(ra!, rb!, {
    ...(checked.tolerance !== undefined ? { tolerance: checked.tolerance } : {}),
    ...(baselines.length > 0 ? { baselines } : {}),
  });
}

/** Picks or takes two runs, compares them and shows the comparison; returns its panel (tests), or undefined. */
export async function compareRunsCommand(deps: RunDeps, args?: CompareRunsArgs): Promise<ComparePanel | undefined> {
  try {
    const checked = checkArgs(args);
    const store = storeOf(deps);
    const ids =
      checked.a !== undefined && checked.b !== undefined
        ? ([checked.a, checked.b] as [string, string])
        : await pickRuns(store);
    if (!ids) return undefined;
    let comparison: Comparison;
    try {
      comparison = await compareChecked(deps, store, ids[0], ids[1], checked);
    } catch (err) {
      if (!(err instanceof CompareError)) throw err;
      deps.log.warn(`compare ${ids[0]} with ${ids[1]}: ${err.message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: {0}', escapeControls(err.message)));
      return undefined;
    }
    const s = comparison.summary;
    deps.log.info(
      `compared ${ids[0]} (A) with ${ids[1]} (B): ${s.common} points in common, ${s.regressions} regressions, ${s.improvements} improvements, ${s.unknownNoise} unknown noise`,
    );
    return ComparePanel.show(deps.context.extensionUri, comparison, deps.log);
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The runs could not be compared'), err);
    return undefined;
  }
}

/** The serializer's half: reopens the comparison the page kept in its state, or closes the panel. */
export async function reviveComparePanel(deps: RunDeps, panel: vscode.WebviewPanel, state: unknown): Promise<void> {
  const s = (typeof state === 'object' && state !== null ? state : {}) as CompareState;
  try {
    if (!vscode.workspace.isTrusted) throw new Error('the workspace is not trusted');
    const checked = checkArgs({
      a: s.a as string,
      b: s.b as string,
      ...(typeof s.tolerance === 'number' ? { tolerance: s.tolerance } : {}),
      ...(Array.isArray(s.baselines) ? { baselines: s.baselines as string[] } : {}),
    });
    if (checked.a === undefined || checked.b === undefined) throw new Error('the panel kept no run ids');
    ComparePanel.revive(
      panel,
      deps.context.extensionUri,
      await compareChecked(deps, storeOf(deps), checked.a, checked.b, checked),
      deps.log,
    );
  } catch (err) {
    deps.log.warn(`could not restore a compare panel: ${(err as Error).message}`);
    panel.dispose();
  }
}
