/**
 * The "Runs" view of the SDMA Lens view container: saved runs grouped by kind and by the node
 * they ran on, each with its status, a SIMULATED or imported mark and its problem count;
 * clicking one opens it in its panel. Refreshed when a run file appears, changes or goes, and
 * after every run this window makes.
 */
import { resolve } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../core/runs/runList';
import { RunList } from '../core/runs/runList';
import { markdownText } from '../core/text';
import { runsFolder } from './settings';

/** What the tree shows: a kind of run, a node within it, or one run. */
export type RunsNode =
  | { kind: 'group'; command: string; runs: RunSummary[] }
  | { kind: 'node'; command: string; node: string; runs: RunSummary[] }
  | { kind: 'run'; summary: RunSummary };

/** The kinds of run, in the tree's order. */
const KIND_ORDER = ['sweep', 'matrix', 'collective', 'overlap', 'run', 'import', 'info'];

/** A kind's group label (localized, so looked up when drawn); undefined for a command the tree does not know. */
function kindLabel(command: string): string | undefined {
  switch (command) {
    case 'sweep':
      return vscode.l10n.t('Transfer sweeps');
    case 'matrix':
      return vscode.l10n.t('Bandwidth matrices');
    case 'collective':
      return vscode.l10n.t('Collectives');
    case 'overlap':
      return vscode.l10n.t('Compute overlap');
    case 'run':
      return vscode.l10n.t('Profiles');
    case 'import':
      return vscode.l10n.t('Imported profiles');
    case 'info':
      return vscode.l10n.t('Node info');
    default:
      return undefined;
  }
}

/** The node a run ran on, as the tree names it. */
export function nodeOf(s: RunSummary): string {
  if (s.header?.source) return vscode.l10n.t('imported from {0}', s.header.source.tool);
  // A fleet's node, by its Slurm name: the runs of one node across fleets group together.
  if (s.header?.fleet) return vscode.l10n.t('{0} (Slurm)', s.header.fleet.node);
  if (s.header?.target.kind === 'ssh') return s.header.target.host ?? vscode.l10n.t('an SSH node');
  return vscode.l10n.t('this machine');
}

/** The tree of a runs folder's summaries: kinds in a fixed order, nodes by name, runs newest first. */
export function runsTree(summaries: readonly RunSummary[]): RunsNode[] {
  const byKind = new Map<string, RunSummary[]>();
  for (const s of summaries) {
    const command = s.header?.command ?? 'corrupt';
    byKind.set(command, [...(byKind.get(command) ?? []), s]);
  }
  const order = [...KIND_ORDER, 'corrupt'];
  return [...byKind.entries()]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([command, runs]) => ({ kind: 'group', command, runs }));
}

function nodesOf(group: Extract<RunsNode, { kind: 'group' }>): RunsNode[] {
  const byNode = new Map<string, RunSummary[]>();
  for (const s of group.runs) byNode.set(nodeOf(s), [...(byNode.get(nodeOf(s)) ?? []), s]);
  // One node: its runs straight under the kind, no level that says nothing.
  if (byNode.size === 1) return group.runs.map((summary) => ({ kind: 'run', summary }));
  return [...byNode.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([node, runs]) => ({ kind: 'node', command: group.command, node, runs }));
}

const STATUS_ICON: Record<RunSummary['status'], string> = {
  ok: 'pass',
  error: 'error',
  crashed: 'error',
  cancelled: 'circle-slash',
  incomplete: 'warning',
  running: 'sync~spin',
  corrupt: 'warning',
};

/** The tree item of a run: what a user scans for (when, status, simulated, problems). */
export function runItem(s: RunSummary): vscode.TreeItem {
  const when = s.header ? new Date(s.header.createdAt).toLocaleString() : s.id;
  const item = new vscode.TreeItem(when, vscode.TreeItemCollapsibleState.None);
  const marks = [
    s.status,
    s.simulated ? vscode.l10n.t('SIMULATED') : undefined,
    s.header?.source ? `${s.header.source.tool} ${s.header.source.file}` : undefined,
    s.problems
      ? s.problems.count === 1
        ? vscode.l10n.t('1 problem')
        : vscode.l10n.t('{0} problems', s.problems.count)
      : undefined,
  ].filter(Boolean);
  item.description = marks.join(' · ');
  item.tooltip = new vscode.MarkdownString(
    [
      `**${markdownText(s.id)}**`,
      vscode.l10n.t('status: {0}', s.status),
      s.simulated ? vscode.l10n.t('SIMULATED: numbers from the simulated MI350X node, not from hardware') : '',
      s.problems ? vscode.l10n.t('first problem: {0}', markdownText(s.problems.first)) : '',
      s.error ? markdownText(s.error) : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  );
  item.iconPath = new vscode.ThemeIcon(STATUS_ICON[s.status]);
  item.contextValue = s.status === 'corrupt' ? 'sdmaLens.run.corrupt' : 'sdmaLens.run';
  item.id = `run:${s.id}`;
  if (s.status !== 'corrupt')
    item.command = { command: 'sdmaLens.openRun', title: vscode.l10n.t('Open Run'), arguments: [s.id] };
  return item;
}

export class RunsViewProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private watcher: vscode.FileSystemWatcher | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly storage: vscode.Uri) {
    this.watch();
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sdmaLens.runsFolder')) {
          this.watch();
          this.refresh();
        }
      }),
    );
  }

  /** Redraws soon: a run writes its file line by line, so changes come in bursts. */
  refresh(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.changed.fire(undefined), 300);
  }

  /** The listing of the runs folder, kept while the view lives: a refresh reads only the run files that changed. */
  private listing: RunList | undefined;

  private runs(): RunList {
    const root = resolve(runsFolder(this.storage));
    if (this.listing?.root !== root) this.listing = new RunList(root, { cache: true });
    return this.listing;
  }

  private watch(): void {
    this.watcher?.dispose();
    let root: string;
    try {
      root = this.runs().root;
    } catch {
      return; // a bad runsFolder setting is said when a command reads it
    }
    this.watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(root), '*/run.ndjson'),
    );
    this.watcher.onDidCreate(() => this.refresh());
    this.watcher.onDidChange(() => this.refresh());
    this.watcher.onDidDelete(() => this.refresh());
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    if (node.kind === 'run') return runItem(node.summary);
    const label = node.kind === 'group' ? (kindLabel(node.command) ?? vscode.l10n.t('Unreadable runs')) : node.node;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
    item.description = `${node.runs.length}`;
    item.id = node.kind === 'group' ? `group:${node.command}` : `node:${node.command}:${node.node}`;
    item.contextValue = node.kind === 'group' ? 'sdmaLens.runGroup' : 'sdmaLens.runNode';
    return item;
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (!node) {
      try {
        return runsTree(await this.runs().list());
      } catch {
        // An unreadable or badly set runs folder shows the welcome content, whose actions say what to do.
        return [];
      }
    }
    if (node.kind === 'group') return nodesOf(node);
    if (node.kind === 'node') return node.runs.map((summary) => ({ kind: 'run', summary }));
    return [];
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.dispose();
    this.changed.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}

/** The run id a view action was given: the tree's node, or an id from a script. */
export function runIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && (arg as RunsNode).kind === 'run')
    return (arg as Extract<RunsNode, { kind: 'run' }>).summary.id;
  return undefined;
}
