/**
 * A fleet read by worker threads (fleetReaders.ts, through loadFleet's `workers`): the same
 * figures and problems in the same order as read in-process; a worker that stops costs only the
 * node it was reading, named; cancel stops the pool; a script that cannot start leaves the
 * reading to this thread. The workers run a bundle of the sources made for the test (esbuild),
 * which stops its thread outright when it reads node n13's run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeFleet } from '../../src/core/fleet/fleetView';
import { loadFleet, WORKERS_FROM_NODES } from '../../src/core/fleetRun/fleetLoad';
import { readNodesInWorkers } from '../../src/core/fleetRun/fleetReaders';
import { FleetStore } from '../../src/core/fleetRun/fleetStore';
import { RunStore } from '../../src/core/runs/runStore';
import { runFromText, runText, saveRun } from '../support/benchRuns';
import { asNode, fleetIndexOf } from '../support/fleets';

const base = runFromText(readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8'));
const names = Array.from({ length: WORKERS_FROM_NODES + 16 }, (_, i) => `n${String(i).padStart(2, '0')}`);
const CRASHES = 'n13';
let dir = '';
let store: RunStore;
let fleets: FleetStore;
let script = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-fleet-readers-'));
  store = new RunStore(join(dir, 'runs'));
  fleets = new FleetStore(store.root);
  names.forEach((n, i) => {
    // One node's run is gone: a problem, as in-process.
    if (n !== 'n05') saveRun(store.root, `sweep-${n}`, runText(asNode(base, n, 0.99 + (i % 7) / 300)));
  });
  fleets.write(fleetIndexOf(names));
  const entry = join(dir, 'reader.ts');
  const src = join(__dirname, '../../src');
  writeFileSync(
    entry,
    [
      `import { RunStore } from ${JSON.stringify(join(src, 'core/runs/runStore'))};`,
      `import ${JSON.stringify(join(src, 'core/fleetRun/fleetReaders'))};`,
      'const openSync = RunStore.prototype.openSync;',
      'RunStore.prototype.openSync = function (id, options) {',
      `  if (id === 'sweep-${CRASHES}') process.exit(7);`,
      '  return openSync.call(this, id, options);',
      '};',
    ].join('\n'),
  );
  script = join(dir, 'reader.cjs');
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadFleet with worker threads', () => {
  it('gives what reading in-process gives, in the index order; a stopped worker costs only its node', async () => {
    const inProcess = await loadFleet(store, fleets);
    let progress = 0;
    const pooled = await loadFleet(store, fleets, undefined, {
      workers: { script, count: 2 },
      onProgress: (done, total) => {
        expect(total).toBe(names.length);
        progress = done;
      },
    });
    expect(progress).toBe(names.length);
    expect([...pooled.nodes.keys()]).toEqual(names);
    // The node whose reader stopped: named, with no figures; every other node as read in-process.
    expect(pooled.problems).toEqual([
      inProcess.problems[0],
      `${CRASHES}: run sweep-${CRASHES} could not be read: the reader stopped (exit code 7)`,
    ]);
    expect(inProcess.problems).toHaveLength(1);
    expect(inProcess.problems[0]).toMatch(/^n05: run sweep-n05 could not be read/);
    expect(pooled.nodes.get(CRASHES)?.figures).toEqual([]);
    for (const n of names) if (n !== CRASHES) expect(pooled.nodes.get(n), n).toStrictEqual(inProcess.nodes.get(n));
    const view = judgeFleet(pooled.index, pooled.nodes);
    expect(view.nodes.find((n) => n.node === CRASHES)?.status).toBe('missing');
  }, 60_000);

  it('reads in-process when no worker can start', async () => {
    const inProcess = await loadFleet(store, fleets);
    const pooled = await loadFleet(store, fleets, undefined, {
      workers: { script: join(dir, 'not-there.cjs'), count: 2 },
    });
    expect(pooled).toStrictEqual(inProcess);
  }, 60_000);

  it('stops the workers and throws once cancelled', async () => {
    const controller = new AbortController();
    let done = 0;
    const read = readNodesInWorkers(store.root, fleetIndexOf(names).nodes, {
      script,
      count: 2,
      signal: controller.signal,
      onProgress: (d) => {
        done = d;
        if (d === 3) controller.abort(new Error('stop'));
      },
    });
    await expect(read).rejects.toThrow('stop');
    expect(done).toBeLessThan(names.length);
  }, 60_000);
});
