/**
 * The timeline page's state: what is loaded (meta, the index's lanes, the few events it draws one by one), the window and scroll,
 * the selection and measure, the lanes folded or open, the level-of-detail answer in hand; the
 * page's elements; the host channel, worker client and toolbar main.ts wires in; and what the
 * page keeps in its webview state across a reload.
 */
import type { TimelineWebviewMessage } from '../../src/core/timeline/timelineMessages';
import type { LodResult, RangeMeasure } from '../../src/core/timeline/timelineLod';
import type { TimelineMeta } from '../../src/core/timeline/timelineModel';
import { el } from '../shared/dom';
import type { HostChannel } from '../shared/hostChannel';
import type { Theme } from '../shared/theme';
import { readTheme } from '../shared/theme';
import type { KnownEvents } from './known';
import { emptyKnown } from './known';
import type { Layout } from './layout';
import type { LodClient } from './lodClient';
import type { Palette } from './renderer';
import type { EventDetails } from '../../src/core/timeline/timelineQueries';
import type { Toolbar } from './toolbar';
import type { PageIndex } from '../../src/core/timeline/timelineEngineProtocol';

/** Kept by VS Code per webview: the serializer reopens the timeline `key` names. */
export interface PanelState {
  key?: string;
  startNs?: number;
  endNs?: number;
  filter?: string;
  expandedCus?: number[];
  collapsedGpus?: number[];
}

/** Figures the browser tests and the benchmark read; the panel itself never looks at them. */
export interface Stats {
  receivedAt: number;
  firstFrameAt: number;
  frameMs: number[];
  lodMs: number[];
  indexMs: number;
  /** When the index arrived, and how long the first full frame took to draw (the benchmark's breakdown). */
  indexAt: number;
  firstFrameDrawMs: number;
  inWorker: boolean;
  /** The events are held by the extension host, which answers the engine's queries. */
  hostHeld: boolean;
  /**
   * A host-held timeline's stage: 'overview' while the host's engine builds its index (the
   * first frames come from its survey of the file), 'ready' once built; 'ready' for any other.
   */
  stage: 'overview' | 'ready';
  /** When the host's engine said its index was built (0 until then), after an overview, and what the build took. */
  readyAt: number;
  builtMs: number;
  /** The stage the first level-of-detail answer arrived in ('overview': drawn from the host's survey of the file). */
  firstLodStage: 'overview' | 'ready' | '';
  /** Where a host-held timeline's first level of detail came from: binned ahead and pushed with the index, binned ahead and asked for, in a pass of its own, or the index. */
  firstLodSource: 'pushed' | 'ahead' | 'file' | 'index' | '';
  /** When the first level-of-detail answer arrived (0 until then). */
  firstLodAt: number;
  events: number;
  draws: number;
  /** Events the filter keeps (all when there is none). */
  kept: number;
  /** Queries to the engine not answered yet (details, hits, steps, filters): the browser tests wait for 0. */
  queries: number;
  /** Names of the kernels drawn one by one in the latest level-of-detail answer. */
  rawKernels: string[];
  view: { startNs: number; endNs: number; scrollY: number; selected: number; lanesDrawn: number };
}

export const stats: Stats = {
  receivedAt: 0,
  firstFrameAt: 0,
  frameMs: [],
  lodMs: [],
  indexMs: 0,
  indexAt: 0,
  firstFrameDrawMs: 0,
  inWorker: false,
  hostHeld: false,
  stage: 'ready',
  readyAt: 0,
  builtMs: 0,
  firstLodStage: '',
  firstLodSource: '',
  firstLodAt: 0,
  events: 0,
  draws: 0,
  kept: 0,
  queries: 0,
  rawKernels: [],
  view: { startNs: 0, endNs: 0, scrollY: 0, selected: -1, lanesDrawn: 0 },
};
(window as unknown as { __timelineStats: Stats }).__timelineStats = stats;

export interface Drag {
  x: number;
  y: number;
  startNs: number;
  endNs: number;
  scrollY: number;
  measuring: boolean;
  moved: boolean;
  id: number;
}

export const s = {
  saved: {} as PanelState,
  meta: undefined as TimelineMeta | undefined,
  /** The events the page draws one by one; the engine holds the timeline itself. */
  known: emptyKnown() as KnownEvents,
  index: undefined as PageIndex | undefined,
  layout: undefined as Layout | undefined,
  result: undefined as LodResult | undefined,
  resultLanes: new Set<number>(),
  resultFilter: 0,
  filterVersion: 0,
  lodId: 0,
  /** Ids of the latest queries of each kind: an older answer is dropped. */
  filterId: 0,
  detailsId: 0,
  hoverId: 0,
  pickId: 0,
  /** Whether the next filter answer zooms to the events it keeps (a kernel opened from the code lens). */
  fitOnFilter: false,
  /** The selected event's details pane, as the engine answered it. */
  details: undefined as EventDetails | undefined,
  inFlight: false,
  startNs: 0,
  endNs: 1,
  scrollY: 0,
  selected: -1,
  related: [] as number[],
  doorbell: -1,
  measure: undefined as { fromNs: number; toNs: number; result?: RangeMeasure } | undefined,
  measureId: 0,
  measureMode: false,
  hoverX: undefined as number | undefined,
  focusRow: 0,
  collapsedGpus: new Set<number>(),
  expandedCus: new Set<number>(),
  theme: readTheme() as Theme,
  palette: undefined as Palette | undefined,
  cssWidth: 800,
  cssHeight: 400,
  drag: undefined as Drag | undefined,
};

/** The restored webview state, read once when the page starts. */
export function restoreState(saved: PanelState | undefined): void {
  s.saved = saved ?? {};
  s.collapsedGpus = new Set(s.saved.collapsedGpus ?? []);
  s.expandedCus = new Set(s.saved.expandedCus ?? []);
}

const canvas = el('canvas', {
  class: 'timeline-canvas',
  tabindex: '0',
  role: 'application',
  'aria-roledescription': 'timeline',
  'aria-label':
    'Timeline. Arrow keys or A and D pan, W and S zoom, F zooms to the selection, M measures, Escape clears. The details below describe the selected event.',
});
const tooltip = el('div', { class: 'tooltip', role: 'tooltip' });
tooltip.hidden = true;
const loading = el('p', { class: 'loading' }, 'Waiting for the timeline…');
const frame = el('div', { class: 'frame' }, canvas, tooltip, loading);
const details = el('section', { class: 'details', 'aria-live': 'polite', 'aria-label': 'Selected event' });
export const els = { canvas, tooltip, loading, frame, details };

/** What main.ts connects: the host channel, the level-of-detail client, the toolbar, the frame scheduler. */
export interface Wiring {
  host: HostChannel<TimelineWebviewMessage, PanelState>;
  client: LodClient;
  toolbar: Toolbar;
  /** Redraws on the next animation frame (several calls, one frame). */
  schedule(): void;
}
export const wire = {} as Wiring;

export const schedule = (): void => wire.schedule();

export function saveState(): void {
  // No index: a timeline is loading, and the window is still the one before it (a save made
  // soon after a zoom of the previous timeline would give its window to this one).
  if (!s.meta || !s.index) return;
  s.saved = {
    ...s.saved,
    key: s.meta.key,
    startNs: s.startNs,
    endNs: s.endNs,
    expandedCus: [...s.expandedCus],
    collapsedGpus: [...s.collapsedGpus],
  };
  wire.host.saveState(s.saved);
}

let saveTimer = 0;
export function saveStateSoon(): void {
  if (saveTimer) return;
  saveTimer = window.setTimeout(() => {
    saveTimer = 0;
    saveState();
  }, 300);
}
