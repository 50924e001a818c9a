/**
 * A saved run's table, as its panel would show it (panelTables.ts), for exporting a run from
 * the Runs view without opening it: the sweep's, the matrix's, or the collective (and overlap)
 * run's. Runs with no table of numbers (a profiled program, `info`) have none.
 */
import { collectivePageView } from '../collective/collectiveView';
import { matrixPageView } from '../matrix/matrixView';
import type { Run } from '../run';
import { sweepView } from '../sweep/sweepView';
import { collectiveTableModel, matrixTableModel, sweepTableModel } from './panelTables';
import type { TableModel } from './tableText';

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
