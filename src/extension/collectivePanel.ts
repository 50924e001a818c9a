/**
 * The panel of one collective or overlap run: a separate page from the sweep panel, since its
 * axes (collective size, variant; compute kept per path) are not the sweep's. The page can ask
 * for the run's knob exports on the clipboard.
 */
import * as vscode from 'vscode';
import type { CollectiveHostMessage, CollectiveWebviewMessage } from '../core/collective/collectiveMessages';
import { parseCollectiveWebviewMessage } from '../core/collective/collectiveMessages';
import { collectivePageView } from '../core/collective/collectiveView';
import { runTabLabel } from '../core/runs/runLabel';
import { simulatedNote } from '../core/advice/envFiles';
import { shellComment } from '../core/text';
import { collectiveTableModel } from '../core/collective/collectivePanelTable';
import type { RunViewPanel } from './runViewPanel';
import { RunPanels } from './runViewPanel';

export const COLLECTIVE_VIEW_TYPE = 'sdmaLens.collective';

export type CollectivePanel = RunViewPanel<CollectiveHostMessage, CollectiveWebviewMessage>;

export const CollectivePanels = new RunPanels<CollectiveHostMessage, CollectiveWebviewMessage>({
  viewType: COLLECTIVE_VIEW_TYPE,
  asset: 'collective',
  title: (run) =>
    run.header.command === 'overlap'
      ? vscode.l10n.t('Overlap {0}', runTabLabel(run))
      : vscode.l10n.t('Collectives {0}', runTabLabel(run)),
  view: (run) => ({ type: 'collective-view', view: collectivePageView(run) }),
  table: (run) => collectiveTableModel(collectivePageView(run)),
  parse: parseCollectiveWebviewMessage,
  handle(message, panel) {
    if (message.type !== 'copy-exports') return;
    const view = collectivePageView(panel.run);
    // Exports from the simulated node say so, as the knob files Suggest Settings writes do.
    const text = view.simulated ? `${shellComment(simulatedNote(panel.run.header.id))}\n${view.exports}` : view.exports;
    void vscode.env.clipboard
      .writeText(text)
      .then(() => vscode.window.setStatusBarMessage(vscode.l10n.t('SDMA Lens: exports copied'), 3000));
  },
});
