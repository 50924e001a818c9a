/**
 * A saved fleet read back (fleetLoad.ts): nodes read a bounded number at once, in the index's
 * order whatever order the reads end in, cancellable; judged from each node's figures alone the
 * same as from its whole runs; and `fleet show --json` written piece by piece (fleetJson.ts) is
 * the same text as the JSON written whole, through a pipe that takes it slowly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetJsonPieces } from '../../src/core/fleet/fleetJson';
import type { NodeRuns } from '../../src/core/fleet/fleetView';
import { fleetView, judgeFleet } from '../../src/core/fleet/fleetView';
import { loadFleet } from '../../src/core/fleetRun/fleetLoad';
import { FleetStore } from '../../src/core/fleetRun/fleetStore';
import type { Run } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { jsonText } from '../../src/core/text';
import { writePieces } from '../../src/cli/commands/fleet';
import { benchRun, runText, saveRun } from '../support/benchRuns';
import { asNode, fleetIndexOf } from '../support/fleets';

const base = benchRun('sweep');
const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`);
const noise = (i: number) => 0.99 + ((i * 37) % 21) / 1000;
let dir = '';
let store: RunStore;
let fleets: FleetStore;
const runs = new Map<string, NodeRuns>();
/** The runs as saved: all but the one that is gone. */
const whole = () => new Map([...runs].filter(([n]) => n !== 'n05'));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-fleet-load-'));
  store = new RunStore(join(dir, 'runs'));
  fleets = new FleetStore(store.root);
  names.forEach((n, i) => {
    const run = asNode(base, n, noise(i), n === 'n07' ? 0.7 : 1);
    runs.set(n, { sweep: run });
    // One node's run is gone: said as a problem, the node kept as missing.
    if (n !== 'n05') saveRun(store.root, `sweep-${n}`, runText(run));
  });
  fleets.write(fleetIndexOf(names));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadFleet', () => {
  it('judges the fleet the same from the figures it keeps as from the whole runs', async () => {
    const loaded = await loadFleet(store, fleets);
    expect([...loaded.nodes.keys()]).toEqual(names);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toMatch(/^n05: run sweep-n05 could not be read/);
    const view = judgeFleet(loaded.index, loaded.nodes);
    expect(view).toEqual(fleetView(loaded.index, whole()));
    expect(view.outliers.some((o) => o.node === 'n07')).toBe(true);
    expect(view.nodes.find((n) => n.node === 'n05')?.status).toBe('missing');
  });

  it('keeps the index order whatever order the reads end in, and never has more reads in flight than asked', async () => {
    let inFlight = 0;
    let most = 0;
    const open = async (runId: string): Promise<Run> => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Later nodes end first.
      await new Promise((r) => setTimeout(r, (names.length - Number(runId.slice(-2))) % 7));
      inFlight--;
      return store.open(runId);
    };
    const loaded = await loadFleet(store, fleets, undefined, { concurrency: 5, open });
    expect(most).toBe(5);
    expect([...loaded.nodes.keys()]).toEqual(names);
    expect(judgeFleet(loaded.index, loaded.nodes)).toEqual(fleetView(loaded.index, whole()));
  });

  it('stops reading once cancelled and throws', async () => {
    const controller = new AbortController();
    let opened = 0;
    const open = async (runId: string): Promise<Run> => {
      opened++;
      if (opened === 6) controller.abort();
      await new Promise((r) => setTimeout(r, 1));
      return store.open(runId);
    };
    await expect(
      loadFleet(store, fleets, undefined, { concurrency: 3, open, signal: controller.signal }),
    ).rejects.toThrow();
    expect(opened).toBeLessThan(6 + 3);
  });
});

describe('fleet --json written piece by piece', () => {
  it('is the text of the JSON written whole', async () => {
    const loaded = await loadFleet(store, fleets);
    const view = judgeFleet(loaded.index, loaded.nodes, { maxBelowMedian: 0.2 });
    const file = '/x/fleets/f/fleet.json';
    expect([...fleetJsonPieces(view, file)].join('')).toBe(jsonText({ ...view, fleetFile: file }, 2));
  });

  it('is the same for any view-shaped value (fuzz)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (value, file) => {
        const view = value as never;
        expect([...fleetJsonPieces(view, file)].join('')).toBe(jsonText({ ...(value as object), fleetFile: file }, 2));
      }),
    );
  });

  it('waits for a slow reader instead of piling up the output, and stops when the reader is gone', async () => {
    const out = new PassThrough({ highWaterMark: 1024 });
    const pieces = function* () {
      for (let i = 0; i < 2000; i++) yield `${'x'.repeat(99)}\n`;
    };
    const controller = new AbortController();
    let finished = false;
    const writing = writePieces(pieces(), controller.signal, out).then((r) => {
      finished = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Nothing read yet: the writer waits on 'drain' with about one write buffered, not all 200 KB.
    expect(finished).toBe(false);
    expect(out.writableLength).toBeLessThanOrEqual(64 * 1024 + 100);
    let got = 0;
    out.on('data', (c: Buffer) => (got += c.length));
    expect(await writing).toBe(true);
    expect(got).toBe(2000 * 100);

    const gone = new PassThrough({ highWaterMark: 1024 });
    const stopping = writePieces(pieces(), controller.signal, gone);
    gone.destroy();
    expect(await stopping).toBe(false);
  });
});
