/**
 * A saved run's table, as its panel would show it (each feature's `*PanelTable.ts`), for
 * exporting a run from the Runs view without opening it: the sweep's, the matrix's, or the
 * collective (and overlap) run's. Runs with no table of numbers (a profiled program, `info`)
 * have none.
 */
import { collectivePageView } from '../core/collective/collectiveView';
import { matrixPageView } from '../core/matrix/matrixView';
import type { Run } from '../core/run';
import { sweepView } from '../core/sweep/sweepView';
import { collectiveTableModel } from '../core/collective/collectivePanelTable';
import { matrixTableModel } from '../core/matrix/matrixPanelTable';
import { sweepTableModel } from '../core/sweep/sweepPanelTable';
import type { TableModel } from '../core/tables/tableText';

export function runTableModel(run: Run): TableModel | undefined {
  switch (run.header.command) {
    case 'sweep':
      return sweepTableModel(sweepView(run));
    case 'matrix':
      return matrixTableModel(matrixPageView(run));
    case 'collective':
    case 'overlap':
      return collectiveTableModel(collectivePageView(run));
    default:
      return undefined;
  }
}
