/**
 * The panel of one bandwidth-matrix run: a heat map per copy path (its own page, since its
 * axes, source and destination GPU, are neither the sweep's nor the collectives').
 */
import * as vscode from 'vscode';
import type { MatrixHostMessage, MatrixWebviewMessage } from '../core/matrix/matrixMessages';
import { parseMatrixWebviewMessage } from '../core/matrix/matrixMessages';
import { matrixPageView } from '../core/matrix/matrixView';
import { runTabLabel } from '../core/runs/runLabel';
import { matrixTableModel } from '../core/matrix/matrixPanelTable';
import type { RunViewPanel } from './runViewPanel';
import { RunPanels } from './runViewPanel';

export const MATRIX_VIEW_TYPE = 'sdmaLens.matrix';

export type MatrixPanel = RunViewPanel<MatrixHostMessage, MatrixWebviewMessage>;

export const MatrixPanels = new RunPanels<MatrixHostMessage, MatrixWebviewMessage>({
  viewType: MATRIX_VIEW_TYPE,
  asset: 'matrix',
  title: (run) => vscode.l10n.t('Matrix {0}', runTabLabel(run)),
  view: (run) => ({ type: 'matrix-view', view: matrixPageView(run) }),
  table: (run) => matrixTableModel(matrixPageView(run)),
  parse: parseMatrixWebviewMessage,
});
