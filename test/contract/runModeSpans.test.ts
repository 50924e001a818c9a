/**
 * `sdma-probe run`'s `device-span` records: which CU ran what, when. A stand-in for a program
 * built with <sdma_lens/trace.h> writes `dev` trace lines (docs/PROFILE.md, "Trace lines") on
 * the trace channel; the real helper merges, caps and orders them, and the extension's
 * run-mode timeline puts them on CU lanes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CopyOp, DeviceSpan, Dispatch, HelperRecord, Warning } from '../../src/core/protocol';
import { PATHS } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import { profileTimeline } from '../../src/core/profile/profileTimeline';
import { labelOf } from '../../src/core/timeline/timelineFile';
import { KIND_CU, buildIndex } from '../../src/core/timeline/timelineModel';
import { header } from '../support/records';
import { expectRunOrder, helper, records } from './run';

interface Dev {
  gpu: number;
  label: string;
  cu: number;
  xcc: number;
  start: number;
  end: number;
  bytes: number;
  peer: number;
  mover?: 'cu' | 'engine';
  pull?: boolean;
}

const work = mkdtempSync(join(tmpdir(), 'sdma-lens-spans-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A stand-in program writing these `dev` lines to the helper's trace pipe. Their times are
 * CLOCK_MONOTONIC (Node's hrtime on Linux) from 200 ms after now, so about when the program runs;
 * tests compare distances between records, which do not depend on when it started.
 */
function program(spans: Dev[], name: string): string[] {
  const BASE = Number(process.hrtime.bigint()) + 200_000_000;
  const lines = spans.map((s) =>
    JSON.stringify({
      k: 'dev',
      pid: 1,
      gpu: s.gpu,
      label: s.label,
      cu: s.cu,
      xcc: s.xcc,
      monoStartNs: BASE + s.start,
      monoEndNs: BASE + s.end,
      bytes: s.bytes,
      peer: s.peer,
      mover: s.mover ?? 'cu',
      pull: s.pull ?? false,
    }),
  );
  const file = join(work, `${name}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return ['/bin/sh', '-c', 'cat "$0" > "/dev/fd/${SDMA_LENS_TRACE_FD%%:*}"', file];
}

const spansOf = (rs: HelperRecord[]) => rs.filter((r): r is DeviceSpan => r.type === 'device-span');
const warningsOf = (rs: HelperRecord[]) => rs.filter((r): r is Warning => r.type === 'warning');

/** A kernel on GPU 0 and 1: per GPU, CUs 0..3 of XCC 0 and 2 compute (two blocks back to back each), then each puts 4 KiB into the other GPU. */
function fusedLike(): Dev[] {
  const out: Dev[] = [];
  for (const gpu of [0, 1]) {
    for (const xcc of [0, 2]) {
      for (let cu = 0; cu < 4; cu++) {
        out.push({ gpu, label: 'compute', cu, xcc, start: 10_000, end: 20_000, bytes: 0, peer: -1 });
        out.push({ gpu, label: 'compute', cu, xcc, start: 20_000, end: 30_000, bytes: 0, peer: -1 });
        out.push({ gpu, label: 'a2a', cu, xcc, start: 31_000 + cu * 100, end: 40_000, bytes: 4096, peer: 1 - gpu });
      }
    }
  }
  return out;
}

describe('sdma-probe run: device-span records (sim backend, a stand-in trace.h program)', () => {
  it("every CU's spans come as records after the dispatches and copies, merged where a CU's spans of one label touch", () => {
    const dev = fusedLike();
    const r = helper(['run', '--backend', 'sim', '--', ...program(dev, 'fused')]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectRunOrder(rs);
    const spans = spansOf(rs);
    // 2 GPUs x 2 XCCs x 4 CUs: one merged compute span (two touching blocks) and one put each.
    expect(spans).toHaveLength(2 * 2 * 4 * 2);
    const t0 = Math.min(...spans.map((s) => s.startNs));
    for (const s of spans) {
      const written = dev.filter((d) => d.gpu === s.gpu && d.cu === s.cu && d.xcc === s.xcc && d.label === s.label);
      expect(written.length).toBeGreaterThan(0);
      expect(s.startNs - t0).toBe(Math.min(...written.map((d) => d.start)) - 10_000);
      expect(s.endNs - s.startNs).toBe(
        Math.max(...written.map((d) => d.end)) - Math.min(...written.map((d) => d.start)),
      );
      expect(s.bytes).toBe(written.reduce((n, d) => n + d.bytes, 0));
      expect(s).toMatchObject({ peer: written[0]!.peer, mover: 'cu', pull: false });
    }
    // The fold into dispatches and copies is what it was: the CU count, the summed put.
    const dispatches = rs.filter((x): x is Dispatch => x.type === 'dispatch');
    expect(dispatches.filter((d) => d.name === 'compute').map((d) => d.cusSeen)).toEqual([8, 8]);
    const copies = rs.filter((x): x is CopyOp => x.type === 'copy');
    expect(copies.map((c) => [c.srcGpu, c.dstGpu, c.bytes])).toEqual(
      expect.arrayContaining([
        [0, 1, 8 * 4096],
        [1, 0, 8 * 4096],
      ]),
    );
    expect(warningsOf(rs).map((w) => w.code)).not.toContain('device-spans-capped');
  });

  it('--span-records N keeps the first N in time order and says how many it dropped; 0 sends none', () => {
    // 300 CUs, each with three spans apart in time: 900 spans, none merged.
    const dev: Dev[] = [];
    for (let i = 0; i < 900; i++)
      dev.push({
        gpu: 0,
        label: 'step',
        cu: i % 300,
        xcc: 0,
        start: 1000 + i * 50,
        end: 1000 + i * 50 + 40,
        bytes: 64,
        peer: 1,
        mover: i % 2 ? 'engine' : 'cu',
        pull: i % 3 === 0,
      });
    const argv = program(dev, 'many');
    const all = spansOf(records(helper(['run', '--backend', 'sim', '--', ...argv])));
    expect(all).toHaveLength(900);

    const r = helper(['run', '--backend', 'sim', '--span-records', '250', '--', ...argv]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectRunOrder(rs);
    const kept = spansOf(rs);
    const fromFirst = (list: DeviceSpan[]) =>
      list.map((s) => ({ ...s, startNs: s.startNs - list[0]!.startNs, endNs: s.endNs - list[0]!.startNs }));
    expect(fromFirst(kept)).toEqual(fromFirst(all).slice(0, 250));
    expect(kept.at(-1)!.startNs - kept[0]!.startNs).toBe(249 * 50);
    expect(kept.filter((s) => s.mover === 'engine')).toHaveLength(125);
    expect(kept.filter((s) => s.pull)).toHaveLength(84);
    const capped = warningsOf(rs).find((w) => w.code === 'device-spans-capped');
    expect(capped?.message).toMatch(/^650 of 900 device-trace spans .*first 250 in time order.*Raise --span-records/);
    // The copies still count every span.
    expect(rs.filter((x): x is CopyOp => x.type === 'copy').reduce((n, c) => n + c.bytes, 0)).toBe(900 * 64);

    const none = records(helper(['run', '--backend', 'sim', '--span-records', '0', '--', ...argv]));
    expect(spansOf(none)).toEqual([]);
    expect(warningsOf(none).map((w) => w.code)).not.toContain('device-spans-capped');
  });

  it('a bad --span-records is a usage error that says the range', () => {
    for (const value of ['-1', 'many', '99999999999']) {
      const r = helper(['run', '--backend', 'sim', '--span-records', value, '--', '/bin/true']);
      expect(r.status).toBe(2);
      expect(records(r).find((x) => x.type === 'error')).toMatchObject({
        code: 'usage',
        message: expect.stringMatching(/--span-records: .* out of range \(0\.\./),
      });
    }
  });

  it("the run-mode timeline puts them on their GPU's CU lanes (XCC x 1024 + CU), coloured by path, with their bytes", () => {
    const rs = records(helper(['run', '--backend', 'sim', '--', ...program(fusedLike(), 'timeline')]));
    const run = newRun({ ...header('spans'), command: 'run' });
    for (const record of rs) applyRecord(run, record);
    const spans = spansOf(rs);
    const { columns: t } = profileTimeline(run);
    const cuEvents = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_CU);
    expect(cuEvents).toHaveLength(spans.length);
    for (const s of spans) {
      const e = cuEvents.find(
        (x) => t.gpu[x] === s.gpu && t.lane[x] === s.xcc * 1024 + s.cu && labelOf(t, x) === s.label,
      );
      expect(e, `${s.label} on GPU ${s.gpu} XCC ${s.xcc} CU ${s.cu}`).toBeDefined();
      expect([t.startNs[e!], t.endNs[e!], t.bytes[e!]]).toEqual([s.startNs, s.endNs, s.bytes]);
      expect(PATHS[t.path[e!]!]).toBe(s.peer < 0 ? 'cu/host' : 'cu/device');
    }
    const gpuCus = run.topology!.gpus.map((g) => g.cus);
    const index = buildIndex(t, { gpuCus, vendor: 'amd' });
    const cuLanes = index.lanes.filter((l) => l.category === 'cu');
    expect(cuLanes.map((l) => `${l.gpu}:${l.number}`)).toEqual([
      '0:0',
      '0:1',
      '0:2',
      '0:3',
      '0:2048',
      '0:2049',
      '0:2050',
      '0:2051',
      '1:0',
      '1:1',
      '1:2',
      '1:3',
      '1:2048',
      '1:2049',
      '1:2050',
      '1:2051',
    ]);
    // The occupancy strip of each GPU sums its CU lanes, a fraction of the GPU's CUs from the topology.
    expect(index.heat.map((h) => [h.gpu, h.cuLanes.length, h.cuCount])).toEqual([
      [0, 8, gpuCus[0]],
      [1, 8, gpuCus[1]],
    ]);
  });
});
