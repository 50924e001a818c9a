/**
 * The panel of one fleet: the nodes of a Slurm allocation judged against each other
 * (core/fleet/fleetView.ts), its page in webview/fleet/.
 *
 * The panel is not a run view (a fleet is many runs, keyed by the fleet's id): like the
 * compare panel it is built on the panels' shared plumbing, `PanelPage` in runViewPanel.ts
 * (HTML, CSP, nonce, every page message validated). It holds the whole `FleetView` and posts
 * the page its condensed form (core/fleet/fleetPage.ts); a figure's per-node values go to the
 * page only when the page picks that figure (`select-figure`, answered with `figure-values`).
 * "Open" next to a node's run opens it through "SDMA Lens: Open Run", with the run's id,
 * so each kind of run opens where it is drawn. The page keeps the fleet id and the figure
 * shown in its state, so a serializer can reopen it after a reload (`fleetIdOfState`, `revive`).
 */
import * as vscode from 'vscode';
import type { FleetIndex } from '../core/fleet/fleetIndex';
import type { FleetHostMessage, FleetPageView, FleetWebviewMessage } from '../core/fleet/fleetMessages';
import { parseFleetWebviewMessage } from '../core/fleet/fleetMessages';
import { figureValues, fleetPageView } from '../core/fleet/fleetPage';
import { fleetTableModel } from '../core/fleet/fleetPanelTable';
import type { FleetView } from '../core/fleet/fleetView';
import { PanelPage, answerTableMessage, isTableMessage } from './runViewPanel';
import { panelOptions } from './webviewOptions';

export const FLEET_VIEW_TYPE = 'sdmaLens.fleet';

const FLEET_PAGE = { asset: 'fleet', parse: parseFleetWebviewMessage };
const FLEET_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * What the panel shows: a loaded fleet (core/fleetRun/fleetLoad.ts `loadFleet`) judged by
 * `judgeFleet`. `{ ...loaded, view: judgeFleet(loaded.index, loaded.nodes, thresholds) }` is one.
 */
export interface FleetPanelInput {
  view: FleetView;
  /** The fleet's index: which command each node's run ran (the page's Open buttons say it). */
  index?: FleetIndex;
  /** Runs the index names that could not be read (`LoadedFleet.problems`): shown with the fleet's notes. */
  problems?: readonly string[];
}

/** The page's state, as a serializer receives it: the fleet's id and the figure shown. */
export interface FleetPanelState {
  fleet?: unknown;
  figure?: unknown;
}

/** The fleet id a restored page kept in its state, when it is one; undefined otherwise. */
export function fleetIdOfState(state: unknown): string | undefined {
  const id = typeof state === 'object' && state !== null ? (state as FleetPanelState).fleet : undefined;
  return typeof id === 'string' && FLEET_ID.test(id) ? id : undefined;
}

export class FleetPanel extends PanelPage<FleetWebviewMessage> {
  private static readonly open = new Map<string, FleetPanel>();
  /** The last message VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: FleetHostMessage | undefined;
  private pageView: FleetPageView;

  static forFleet(id: string): FleetPanel | undefined {
    return FleetPanel.open.get(id);
  }

  /** Shows the fleet in its panel (the one already open for it, updated, or a new one). */
  static show(extensionUri: vscode.Uri, log: vscode.LogOutputChannel, loaded: FleetPanelInput): FleetPanel {
    const existing = FleetPanel.forFleet(loaded.view.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(loaded);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      FLEET_VIEW_TYPE,
      titleOf(loaded.view),
      vscode.ViewColumn.Active,
      panelOptions(extensionUri),
    );
    return new FleetPanel(panel, extensionUri, log, loaded);
  }

  /** Rebuilds a panel VS Code restored after a reload (the fleet read again from the id `fleetIdOfState` gives). */
  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    loaded: FleetPanelInput,
  ): FleetPanel {
    panel.webview.options = panelOptions(extensionUri);
    return new FleetPanel(panel, extensionUri, log, loaded);
  }

  private constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    private loaded: FleetPanelInput,
  ) {
    super(panel, extensionUri, log, FLEET_PAGE, titleOf(loaded.view));
    this.pageView = pageOf(loaded);
    FleetPanel.open.set(loaded.view.id, this);
  }

  get shown(): FleetView {
    return this.loaded.view;
  }

  /** The same fleet judged again (read back after more nodes finished, other thresholds): the page redraws. */
  update(loaded: FleetPanelInput): void {
    if (loaded.view.id !== this.loaded.view.id)
      throw new Error(`fleet panel ${this.loaded.view.id} cannot show fleet ${loaded.view.id}`);
    this.loaded = loaded;
    this.pageView = pageOf(loaded);
    this.panel.title = titleOf(loaded.view);
    this.post({ type: 'fleet-view', view: this.pageView });
  }

  private post(message: FleetHostMessage): void {
    if (this.disposed || !this.ready) return;
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  protected onReady(): void {
    this.post({ type: 'fleet-view', view: this.pageView });
  }

  protected handle(message: Exclude<FleetWebviewMessage, { type: 'ready' | 'webview-error' }>): void {
    if (isTableMessage(message)) {
      answerTableMessage(message, fleetTableModel(this.pageView), `fleet-${this.loaded.view.id}`, this.log);
      return;
    }
    switch (message.type) {
      case 'select-figure': {
        const figure = figureValues(this.loaded.view, message.key);
        if (figure) this.post({ type: 'figure-values', figure });
        else this.log.warn(`fleet ${this.loaded.view.id} has no figure ${JSON.stringify(message.key.slice(0, 200))}`);
        break;
      }
      case 'open-run':
        // Only a run of this fleet: the page names it, the fleet's own list decides.
        if (this.loaded.view.nodes.some((n) => n.runIds.includes(message.runId)))
          void vscode.commands.executeCommand('sdmaLens.openRun', message.runId);
        else this.log.warn(`fleet ${this.loaded.view.id} has no run ${message.runId}`);
        break;
      default: {
        const never: never = message;
        this.log.warn(`unhandled fleet panel message ${JSON.stringify(never)}`);
      }
    }
  }

  protected unlist(): void {
    FleetPanel.open.delete(this.loaded.view.id);
  }
}

function pageOf(loaded: FleetPanelInput): FleetPageView {
  return fleetPageView(loaded.view, {
    ...(loaded.index ? { index: loaded.index } : {}),
    ...(loaded.problems ? { problems: loaded.problems } : {}),
  });
}

function titleOf(view: FleetView): string {
  return view.nodes.length === 1
    ? vscode.l10n.t('SDMA Lens fleet {0} (1 node)', view.id)
    : vscode.l10n.t('SDMA Lens fleet {0} ({1} nodes)', view.id, view.nodes.length);
}
