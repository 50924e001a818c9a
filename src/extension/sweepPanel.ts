/**
 * The panel of one sweep run, a kind of the one run panel host (runViewPanel.ts): a live run
 * and a reopened one are the same kind, the live one with `live` set while it streams. The
 * page's extra requests are the sweep's own: the advice for the pair it shows, a point's
 * timeline, "Suggest Settings"; its table's export and copy are the host's (runViewPanel.ts).
 */
import * as vscode from 'vscode';
import type { EndpointPair } from '../core/endpoints';
import { pairName } from '../core/endpoints';
import type { HostMessage, WebviewMessage } from '../core/sweep/sweepMessages';
import { parseWebviewMessage } from '../core/sweep/sweepMessages';
import { adviseFromRun } from '../core/advice/advice';
import type { AdviceView } from '../core/advice/adviceView';
import { adviceView } from '../core/advice/adviceView';
import { adviceSettings } from './settings';
import type { Run } from '../core/run';
import { runTabLabel } from '../core/runs/runLabel';
import type { SweepView } from '../core/sweep/sweepView';
import { contradictingPoints, sweepView } from '../core/sweep/sweepView';
import { sweepTableModel } from '../core/sweep/sweepPanelTable';
import type { RunViewPanel } from './runViewPanel';
import { RunPanels } from './runViewPanel';

export const SWEEP_VIEW_TYPE = 'sdmaLens.sweep';

/** What a sweep panel keeps besides its run: the endpoint pair the page shows (its pair switcher); the advice follows it. */
interface SweepState {
  pair: EndpointPair | undefined;
}

export type SweepPanel = RunViewPanel<HostMessage, WebviewMessage, SweepState>;

export const SweepPanel = new RunPanels<HostMessage, WebviewMessage, SweepState>({
  viewType: SWEEP_VIEW_TYPE,
  asset: 'sweep',
  title: (run) => vscode.l10n.t('Sweep {0}', runTabLabel(run)),
  parse: parseWebviewMessage,
  initialState: () => ({ pair: undefined }),
  view: (run, panel) => {
    const view = sweepView(run, panel.live);
    return { type: 'sweep', view, ...advice(run, panel), ...evidenceNote(view) };
  },
  table: (run, panel) => sweepTableModel(sweepView(run, panel.live)),
  handle(message, panel) {
    switch (message.type) {
      case 'cus-selected':
        panel.logger.trace(`sweep panel ${panel.runId}: showing ${message.cus} CUs`);
        break;
      case 'suggest-settings':
        // The pair the panel shows, so the settings applied are the ones it advises.
        void vscode.commands.executeCommand('sdmaLens.suggestSettings', {
          runId: panel.runId,
          ...(panel.state.pair ? { pair: panel.state.pair } : {}),
        });
        break;
      case 'open-timeline':
        // Through the command, so the timeline keeps its own trust check, progress and errors.
        void vscode.commands.executeCommand('sdmaLens.showTimeline', {
          runId: panel.runId,
          sizeBytes: message.sizeBytes,
          path: message.path,
          cus: message.cus,
          ...(message.src !== undefined && message.dst !== undefined ? { src: message.src, dst: message.dst } : {}),
        });
        break;
      case 'pair-selected':
        panel.logger.trace(`sweep panel ${panel.runId}: showing ${pairName(message)}`);
        panel.state.pair = { src: message.src, dst: message.dst };
        panel.flush();
        break;
      default: {
        const never: never = message;
        panel.logger.warn(`unhandled panel message ${JSON.stringify(never)}`);
      }
    }
  },
});

/** What a sample flagged "✗ contradicts" means, said at the top of the page while the run has one. */
function evidenceNote(view: SweepView): { evidenceNote?: string } {
  const flagged = contradictingPoints(view).length;
  if (flagged === 0) return {};
  return {
    evidenceNote:
      flagged === 1
        ? vscode.l10n.t(
            "One sample is flagged ✗ contradicts: the platform saw another mover carry its bytes than its label says, so its GB/s is not that path's and cannot be trusted as it. The helper stopped the run there (error mover-mismatch). Hover its Evidence cell for what was seen.",
          )
        : vscode.l10n.t(
            "{0} samples are flagged ✗ contradicts: the platform saw another mover carry their bytes than their labels say, so their GB/s is not those paths' and cannot be trusted as it. Hover a flagged sample's Evidence cell for what was seen.",
            flagged,
          ),
  };
}

/** The advice for the run as it stands; left out (and logged) when settings are invalid. */
function advice(run: Run, panel: SweepPanel): { advice?: AdviceView } {
  if (run.samples.length === 0) return {};
  const pair = panel.state.pair;
  try {
    return { advice: adviceView(adviseFromRun(run, { ...adviceSettings(), ...(pair ? { pair } : {}) })) };
  } catch (err) {
    panel.logger.warn(`sweep panel ${panel.runId}: no advice: ${(err as Error).message}`);
    return {};
  }
}
