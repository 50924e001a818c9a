/**
 * Vertical layout: a group per GPU (collapsible), its kernel, transfer, proxy and engine lanes, a CU
 * occupancy strip, and the per-CU lanes behind a toggle (256 lanes per MI350X are too many to
 * show by default; the strip summarises them). Only rows inside the viewport are drawn or
 * aggregated.
 */
import type { LaneCategory, TimelineIndex, TimelineMeta } from '../../src/core/timeline/timelineModel';
import { laneLabel } from '../../src/core/timeline/timelineModel';
import { escapeControls } from '../../src/core/text';

export type Row =
  | { kind: 'group'; gpu: number; y: number; h: number; label: string; collapsed: boolean }
  | { kind: 'cu-toggle'; gpu: number; y: number; h: number; label: string; expanded: boolean }
  | { kind: 'lane'; lane: number; category: LaneCategory; gpu: number; y: number; h: number; label: string };

const HEIGHT: Record<LaneCategory | 'group' | 'cu-toggle', number> = {
  group: 24,
  kernel: 24,
  transfer: 22,
  proxy: 22,
  engine: 30,
  'cu-heat': 26,
  'cu-toggle': 20,
  cu: 12,
};

export interface Layout {
  rows: Row[];
  heightPx: number;
  /** Row of each lane id (real and heat), for drawing events and arrows. */
  rowOfLane: Map<number, Extract<Row, { kind: 'lane' }>>;
}

export function layoutRows(
  index: Pick<TimelineIndex, 'lanes' | 'heat'>,
  meta: TimelineMeta,
  collapsedGpus: ReadonlySet<number>,
  expandedCus: ReadonlySet<number>,
): Layout {
  const rows: Row[] = [];
  const rowOfLane = new Map<number, Extract<Row, { kind: 'lane' }>>();
  let y = 0;
  const add = (row: Row) => {
    rows.push(row);
    if (row.kind === 'lane') rowOfLane.set(row.lane, row);
    y += row.h;
  };
  const gpus = [...new Set(index.lanes.map((l) => l.gpu))].sort((a, b) => a - b);
  for (const gpu of gpus) {
    const collapsed = collapsedGpus.has(gpu);
    const lanes = index.lanes.filter((l) => l.gpu === gpu);
    const events = lanes.reduce((sum, l) => sum + l.eventCount, 0);
    // Drawn on the canvas and announced: the node's name with its controls and bidi marks escaped.
    add({
      kind: 'group',
      gpu,
      y,
      h: HEIGHT.group,
      label: `GPU ${gpu} · ${escapeControls(meta.nodeLabel)} · ${events.toLocaleString('en-US')} events`,
      collapsed,
    });
    if (collapsed) continue;
    for (const lane of lanes) {
      if (lane.category === 'cu') continue;
      add({
        kind: 'lane',
        lane: lane.id,
        category: lane.category,
        gpu,
        y,
        h: HEIGHT[lane.category],
        label: lane.label,
      });
    }
    const heat = index.heat.find((h) => h.gpu === gpu);
    if (!heat) continue;
    add({
      kind: 'lane',
      lane: heat.id,
      category: 'cu-heat',
      gpu,
      y,
      h: HEIGHT['cu-heat'],
      label: `${laneLabel('cu-heat', 0, meta.vendor)} (${heat.cuCount})`,
    });
    const expanded = expandedCus.has(gpu);
    const unit = meta.vendor === 'nvidia' ? 'SM' : 'CU';
    add({
      kind: 'cu-toggle',
      gpu,
      y,
      h: HEIGHT['cu-toggle'],
      label: `${heat.cuLanes.length} busy ${unit} lanes`,
      expanded,
    });
    if (!expanded) continue;
    for (const id of heat.cuLanes) {
      const lane = index.lanes[id]!;
      add({ kind: 'lane', lane: id, category: 'cu', gpu, y, h: HEIGHT.cu, label: lane.label });
    }
  }
  return { rows, heightPx: y, rowOfLane };
}

/** Rows overlapping [top, bottom) in content coordinates. */
export function rowsIn(layout: Layout, top: number, bottom: number): Row[] {
  return layout.rows.filter((r) => r.y + r.h > top && r.y < bottom);
}

export function rowAt(layout: Layout, y: number): Row | undefined {
  return layout.rows.find((r) => y >= r.y && y < r.y + r.h);
}
