/**
 * The compare panel's view model and its messages: the view of a real comparison regrouped
 * into curves and accepted by the schema the page checks it with (after the JSON round trip
 * a webview message takes); views and page messages the schemas must refuse.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/core/compare/compare';
import { parseCompareHostMessage, parseCompareWebviewMessage } from '../../src/core/compare/compareMessages';
import { comparePageView } from '../../src/core/compare/compareView';
import { benchRun } from '../support/benchRuns';

// Each run's spread alone (tolerance 0), so that the view has regressions to count.
const comparison = compareRuns(benchRun('sweep', 'first'), benchRun('sweepRerun', 'rerun'), { tolerance: 0 });
const view = comparePageView(comparison);
const message = () =>
  JSON.parse(JSON.stringify({ type: 'compare-view', view })) as {
    type: string;
    view: Record<string, unknown> & typeof view;
  };

describe('the compare page view', () => {
  it('groups the 84 points of the H200 sweeps into their 12 curves of 7 sizes, counted by verdict', () => {
    expect(view.groups).toHaveLength(12);
    for (const g of view.groups) {
      expect(g.points.map((p) => p.sizeBytes)).toEqual([4096, 65536, 1 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]);
      const c = g.counts;
      expect(c.regression + c.improvement + c.same + c.unknownNoise + c.onlyInA + c.onlyInB).toBe(7);
      expect(c.regression).toBe(g.points.filter((p) => p.state === 'regression').length);
    }
    expect(view.groups.reduce((n, g) => n + g.counts.regression, 0)).toBe(comparison.summary.regressions);
    expect(view.groups[0]!.label).toBe('cu/host · GPU 0 → GPU 1 · 1 CU · one-shot');
    expect(view.summaryLines[0]).toBe(
      '84 points in common: 59 same, 21 regressions, 4 improvements, 0 unknown noise; 0 only in A, 0 only in B',
    );
  });

  it("carries the run-to-run tolerance, where it came from, and each point's tolerance and widened interval", () => {
    expect(view.noise).toEqual({ source: 'given', tolerance: 0, description: '0 % (given)' });
    expect(view.toleranceLines).toEqual([]);
    const byDefault = comparePageView(compareRuns(benchRun('sweep', 'first'), benchRun('sweepRerun', 'rerun')));
    expect(byDefault.noise.source).toBe('default');
    expect(byDefault.summaryLines[0]).toBe(
      '84 points in common: 84 same, 0 regressions, 0 improvements, 0 unknown noise; 0 only in A, 0 only in B',
    );
    const p = byDefault.groups[0]!.points[0]!;
    expect(p.tolerance).toBe(byDefault.noise.tolerance);
    expect(p.widened![1]).toBeCloseTo(p.interval![1] * (1 + p.tolerance!), 12);
    const estimated = comparePageView(
      compareRuns(benchRun('h200x1Default'), benchRun('h200x1DefaultRerun'), {
        baselines: [benchRun('h200x1Full'), benchRun('h200x1FullRerun')],
      }),
    );
    expect(estimated.noise.source).toBe('baseline runs');
    expect(estimated.noise.runs).toEqual(['h200x1Default', 'h200x1Full', 'h200x1FullRerun']);
    expect(estimated.toleranceLines).toHaveLength(estimated.noise.groups!.length);
    expect(estimated.toleranceLines[0]).toMatch(
      /^run-to-run tolerance of cu\/device, below 1 MiB: [\d.]+ % \(\d+ pairs\)$/,
    );
    expect(
      parseCompareHostMessage(JSON.parse(JSON.stringify({ type: 'compare-view', view: estimated }))),
    ).toBeDefined();
  });

  it('puts points one run alone measured on their curves, marked as such', () => {
    const matrix = comparePageView(compareRuns(benchRun('matrix'), benchRun('matrixConcurrent')));
    const device = matrix.groups.find((g) => g.label === 'cu/device · GPU 0 → GPU 1')!;
    expect(device.points).toHaveLength(1);
    expect(device.points[0]).toMatchObject({ state: 'only in A', sizeBytes: 256 << 20 });
    expect(device.points[0]!.b).toBeUndefined();
    expect(device.counts.onlyInA).toBe(1);
  });
});

describe('host -> page messages', () => {
  it("the view of a real comparison passes the page's schema unchanged", () => {
    const parsed = parseCompareHostMessage(message());
    expect(parsed).toBeDefined();
    expect(parsed!.view).toEqual(JSON.parse(JSON.stringify(view)));
  });

  it('refuses views the page could not draw', () => {
    const bad = (mutate: (m: ReturnType<typeof message>) => void) => {
      const m = message();
      mutate(m);
      return parseCompareHostMessage(m);
    };
    expect(bad((m) => (m.type = 'sweep'))).toBeUndefined();
    expect(bad((m) => (m.view.groups[0]!.points[0]!.state = 'worse' as never))).toBeUndefined();
    // A ratio that JSON turned from NaN into null, an interval of one number.
    expect(bad((m) => ((m.view.groups[0]!.points[0] as Record<string, unknown>).ratio = null))).toBeUndefined();
    expect(bad((m) => ((m.view.groups[0]!.points[0] as Record<string, unknown>).interval = [0.9]))).toBeUndefined();
    expect(bad((m) => delete (m.view as Record<string, unknown>).summary)).toBeUndefined();
    expect(bad((m) => ((m.view as Record<string, unknown>).kind = 'overlap'))).toBeUndefined();
    expect(bad((m) => ((m.view.a as Record<string, unknown>).id = 7))).toBeUndefined();
    expect(bad((m) => ((m.view.summary as Record<string, unknown>).common = -1))).toBeUndefined();
    expect(bad((m) => ((m.view.noise as Record<string, unknown>).source = 'guessed'))).toBeUndefined();
    expect(bad((m) => ((m.view.noise as Record<string, unknown>).tolerance = -0.01))).toBeUndefined();
    expect(bad((m) => delete (m.view as Record<string, unknown>).noise)).toBeUndefined();
    expect(bad((m) => ((m.view.groups[0]!.points[0] as Record<string, unknown>).widened = [0.9]))).toBeUndefined();
    expect(parseCompareHostMessage('compare-view')).toBeUndefined();
  });
});

describe('page -> host messages', () => {
  it('accepts ready, errors and "open" for run A or B', () => {
    expect(parseCompareWebviewMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseCompareWebviewMessage({ type: 'webview-error', message: 'boom' })).toEqual({
      type: 'webview-error',
      message: 'boom',
    });
    expect(parseCompareWebviewMessage({ type: 'open-run', side: 'a' })).toEqual({ type: 'open-run', side: 'a' });
    expect(parseCompareWebviewMessage({ type: 'open-run', side: 'b' })).toEqual({ type: 'open-run', side: 'b' });
  });

  it('refuses anything else', () => {
    expect(parseCompareWebviewMessage({ type: 'open-run', side: 'c' })).toBeUndefined();
    expect(parseCompareWebviewMessage({ type: 'open-run', side: '../x' })).toBeUndefined();
    expect(parseCompareWebviewMessage({ type: 'open-run' })).toBeUndefined();
    expect(parseCompareWebviewMessage({ type: 'open-timeline', sizeBytes: 4096 })).toBeUndefined();
    expect(parseCompareWebviewMessage({ type: 'webview-error', message: 'x'.repeat(2001) })).toBeUndefined();
    expect(parseCompareWebviewMessage(null)).toBeUndefined();
  });
});
