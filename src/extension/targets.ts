/**
 * Which machine runs the helper: this one ("local": in a Remote-SSH window that is the node,
 * since the extension runs there) or a node reached with the system ssh client. The choice is
 * kept per workspace, falls back to the `sdmaLens.target` setting, and shows in the status
 * bar. Connections are kept per node so runs reuse them, and closed when the window closes.
 *
 * A target the workspace's own settings name (`sdmaLens.target` in `.vscode/settings.json`) is
 * confirmed by the user before anything connects to it (workspaceConsent.ts); one the user
 * picked, or set in their user settings, is not asked about.
 */
import * as vscode from 'vscode';
import { LocalTarget } from '../core/runtime/localTarget';
import { SshConnection } from '../core/ssh/connection';
import { formatDestination, parseDestination } from '../core/ssh/destination';
import { SshTarget } from '../core/ssh/sshTarget';
import type { SshDestination } from '../core/ssh/destination';
import type { SshSettings } from '../core/ssh/sshArgs';
import type { Target } from '../core/runtime/target';
import { sshSettings, statusBarVisible, targetSetting, targetWorkspaceEntries } from './settings';
import type { WorkspaceConsent } from './workspaceConsent';
import { ConsentDeclined, showable, workspaceConsent } from './workspaceConsent';

export type TargetChoice = { kind: 'local' } | { kind: 'ssh'; destination: string };

const STATE_KEY = 'sdmaLens.target';
const RECENT_KEY = 'sdmaLens.recentSshTargets';
const MAX_RECENT = 8;

export function choiceFromText(text: string): TargetChoice {
  const t = text.trim();
  if (t === '' || t === 'local') return { kind: 'local' };
  return { kind: 'ssh', destination: formatDestination(parseDestination(t)) };
}

/**
 * A connection that asks `before` first each time it would start ssh, and that closes nothing it
 * never opened (closing starts ssh too).
 */
class GatedSshConnection extends SshConnection {
  private opened = false;

  constructor(
    destination: SshDestination,
    settings: SshSettings,
    private readonly before: () => Promise<void>,
  ) {
    super(destination, settings);
  }

  override async args(argv: readonly string[]): Promise<string[]> {
    await this.before();
    this.opened = true;
    return super.args(argv);
  }

  override async close(): Promise<void> {
    if (this.opened) await super.close();
  }
}

/** `text` (a target setting or saved choice) is an SSH target to `destination`. */
function namesDestination(text: string, destination: string): boolean {
  try {
    const c = choiceFromText(text);
    return c.kind === 'ssh' && c.destination === destination;
  } catch {
    return false;
  }
}

export class TargetService implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly connections = new Map<string, SshConnection>();
  private readonly consent: WorkspaceConsent;
  /** Destinations the user chose in this window (Select Target): theirs, not the workspace's. */
  private readonly chosen = new Set<string>();
  private readonly emitter = new vscode.EventEmitter<TargetChoice>();
  private readonly subscriptions: vscode.Disposable[] = [];
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.consent = workspaceConsent(context, log);
    this.item = vscode.window.createStatusBarItem('sdmaLens.target', vscode.StatusBarAlignment.Left, 50);
    this.item.name = vscode.l10n.t('SDMA Lens Target');
    this.item.command = 'sdmaLens.selectTarget';
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sdmaLens.ssh')) this.dropConnections();
        if (e.affectsConfiguration('sdmaLens.target')) this.refresh();
        if (e.affectsConfiguration('sdmaLens.statusBar')) this.showOrHide();
      }),
    );
    this.refresh();
    this.showOrHide();
  }

  /** `sdmaLens.statusBar.visible`: the item shows unless it is turned off. */
  private showOrHide(): void {
    if (statusBarVisible()) this.item.show();
    else this.item.hide();
  }

  /** The workspace's choice, else the setting; a bad stored value reads as local. */
  choice(): TargetChoice {
    const stored = this.context.workspaceState.get<string>(STATE_KEY);
    try {
      return choiceFromText(stored ?? targetSetting());
    } catch (err) {
      this.log.warn(`ignoring the saved target "${stored ?? ''}": ${(err as Error).message}`);
      return { kind: 'local' };
    }
  }

  recent(): string[] {
    return this.context.globalState.get<string[]>(RECENT_KEY, []).filter((d) => {
      try {
        parseDestination(d);
        return true;
      } catch {
        return false;
      }
    });
  }

  async select(choice: TargetChoice): Promise<void> {
    await this.context.workspaceState.update(STATE_KEY, choice.kind === 'local' ? 'local' : choice.destination);
    if (choice.kind === 'ssh') {
      const recent = [choice.destination, ...this.recent().filter((d) => d !== choice.destination)].slice(
        0,
        MAX_RECENT,
      );
      await this.context.globalState.update(RECENT_KEY, recent);
    }
    this.log.info(`target: ${describeChoice(choice)}`);
    this.refresh();
    this.emitter.fire(choice);
  }

  /** `destination` is the user's own choice (picked or typed in Select Target), so it is not asked about. */
  chosenByUser(destination: string): void {
    this.chosen.add(destination);
  }

  /**
   * Before ssh starts for `destination`: when it is the target the workspace's settings name
   * (no target chosen for this workspace, `sdmaLens.target` set by the workspace), the user
   * confirms it once for these values; declined, ConsentDeclined is thrown and nothing connects.
   */
  private async confirmDestination(destination: string): Promise<void> {
    if (this.chosen.has(destination) || this.context.workspaceState.get<string>(STATE_KEY) !== undefined) return;
    const entries = targetWorkspaceEntries();
    if (entries.length === 0) return;
    let named: TargetChoice;
    try {
      named = choiceFromText(targetSetting());
    } catch {
      return;
    }
    if (named.kind !== 'ssh' || named.destination !== destination) return;
    const confirmed = await this.consent.confirm({
      kind: 'target',
      place: '',
      entries,
      message: vscode.l10n.t(
        'SDMA Lens: the settings of this workspace send runs to {0} over SSH. Connect to it?',
        showable(destination),
      ),
      accept: vscode.l10n.t('Connect'),
    });
    if (!confirmed) throw new ConsentDeclined(`the SSH target ${destination}`);
  }

  /** A shared connection per node and ssh settings; one the workspace's settings named asks before it connects. */
  connection(destination: string): SshConnection {
    const settings = sshSettings(this.log);
    const key = JSON.stringify([destination, settings]);
    let conn = this.connections.get(key);
    if (!conn) {
      conn = new GatedSshConnection(parseDestination(destination), settings, () =>
        this.confirmDestination(destination),
      );
      this.connections.set(key, conn);
    }
    return conn;
  }

  /**
   * The connection to the node a saved run names (`header.target.host`): a run folder can come
   * from anyone, so a host that is not the user's own (picked in this window, a recent target,
   * or the target the user's settings or this workspace's confirmed choice name) is shown and
   * confirmed once before ssh starts; declined, ConsentDeclined is thrown and nothing connects.
   */
  runConnection(destination: string, runId: string): SshConnection {
    const settings = sshSettings(this.log);
    const key = JSON.stringify(['run', destination, settings]);
    let conn = this.connections.get(key);
    if (!conn) {
      conn = new GatedSshConnection(parseDestination(destination), settings, () =>
        this.confirmRunHost(destination, runId),
      );
      this.connections.set(key, conn);
    }
    return conn;
  }

  private async confirmRunHost(destination: string, runId: string): Promise<void> {
    if (this.chosen.has(destination) || this.recent().includes(destination)) return;
    const own = [
      this.context.workspaceState.get<string>(STATE_KEY),
      vscode.workspace.getConfiguration('sdmaLens').inspect<string>('target')?.globalValue,
    ];
    if (own.some((text) => text !== undefined && namesDestination(text, destination))) return;
    const confirmed = await this.consent.confirm({
      kind: 'run-host',
      place: '',
      entries: [{ setting: 'target of the saved run', scope: 'workspace', value: destination }],
      intro: vscode.l10n.t('Named by the saved run {0}, not by you:', showable(runId)),
      message: vscode.l10n.t(
        'SDMA Lens: recording this timeline connects over SSH to {0}, the node the saved run names. Connect to it?',
        showable(destination),
      ),
      accept: vscode.l10n.t('Connect'),
    });
    if (!confirmed) throw new ConsentDeclined(`the SSH node ${destination}`, `saved run ${runId}`);
  }

  /** The Target for a run on the current choice. */
  target(choice = this.choice()): Target {
    return choice.kind === 'local' ? new LocalTarget() : new SshTarget(this.connection(choice.destination));
  }

  private refresh(): void {
    const choice = this.choice();
    const remote = vscode.env.remoteName;
    if (choice.kind === 'local') {
      this.item.text = remote
        ? vscode.l10n.t('$(server-environment) SDMA: this node')
        : vscode.l10n.t('$(server-environment) SDMA: local');
      this.item.tooltip = remote
        ? vscode.l10n.t(
            'SDMA Lens runs the helper on the machine of this {0} window. Click to choose another target.',
            remote,
          )
        : vscode.l10n.t('SDMA Lens runs the helper on this machine. Click to run it on a node over SSH.');
    } else {
      this.item.text = vscode.l10n.t('$(remote) SDMA: {0}', choice.destination);
      this.item.tooltip = vscode.l10n.t(
        'SDMA Lens runs the helper on {0} over SSH (the system ssh client and your ~/.ssh/config). Click to change.',
        choice.destination,
      );
    }
  }

  private dropConnections(): void {
    for (const conn of this.connections.values()) void conn.close().catch(() => {});
    this.connections.clear();
  }

  dispose(): void {
    this.dropConnections();
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
    this.emitter.dispose();
  }
}

export function describeChoice(choice: TargetChoice): string {
  return choice.kind === 'local'
    ? vscode.env.remoteName
      ? `this node (${vscode.env.remoteName} window)`
      : 'this machine'
    : `${choice.destination} over SSH`;
}
