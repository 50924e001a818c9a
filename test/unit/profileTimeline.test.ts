/**
 * The run-mode timeline built from what `sdma-probe run --backend cuda` recorded on H200 nodes
 * (test/fixtures/runmode/): every launch once, named; host copies on engine lanes; the
 * transfers the kernels made inside their launches; the kernel filter; the restore key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { TimelineColumnsSchema } from '../../src/core/timeline/timelineMessages';
import { cuLane } from '../../src/core/deviceSpans';
import type { DeviceSpan, Dispatch } from '../../src/core/protocol';
import { PATHS, parseLine, pathName, validateRecord } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import {
  parseProfileTimelineKey,
  profileTimelineKey,
  profileTimeline,
  profileTimelineMeta,
} from '../../src/core/profile/profileTimeline';
import { labelOf } from '../../src/core/timeline/timelineFile';
import { filterMask, kernelFilter, parseFilter } from '../../src/core/timeline/timelineFilter';
import {
  ENGINE_UNKNOWN,
  KIND_CU,
  KIND_KERNEL,
  KIND_PACKET,
  KIND_TRANSFER,
  buildIndex,
  filterColumns,
} from '../../src/core/timeline/timelineModel';
import { chromeTraceJson } from '../../src/core/timeline/timelineTrace';
import { header } from '../support/records';

function recordedRun(file: string) {
  const run = newRun({ ...header('h200'), command: 'run' });
  for (const line of readFileSync(join(__dirname, '../fixtures/runmode', file), 'utf8').split('\n')) {
    if (!line) continue;
    const r = parseLine(line);
    if (r.kind !== 'record') throw new Error(`${file}: ${line.slice(0, 80)}`);
    applyRecord(run, r.record);
  }
  return run;
}

const FUSED = '(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)';

describe.each([
  ['2x H200', 'runmode-fused-a2a.ndjson', 2],
  ['1x H200', 'h200x1/runmode-fused-a2a.ndjson', 1],
])('run-mode timeline of the %s recording', (_name, file, gpus) => {
  const run = recordedRun(file);
  const { columns: t, hostOnlyCopies } = profileTimeline(run);
  const kernels = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_KERNEL);

  it('has every dispatch exactly once, on its GPU, with its printed name and the CUs the trace saw', () => {
    expect(run.dispatches.length).toBeGreaterThan(0);
    expect(kernels).toHaveLength(run.dispatches.length);
    const unmatched = new Set(kernels);
    for (const d of run.dispatches) {
      const e = kernels.find(
        (k) => unmatched.has(k) && t.gpu[k] === d.gpu && t.startNs[k] === d.startNs && t.endNs[k] === d.endNs,
      );
      expect(e, `${d.name} at ${d.startNs}`).toBeDefined();
      unmatched.delete(e!);
      expect(labelOf(t, e!)).toBe(d.name);
      expect(t.cus![e!]).toBe(d.cusSeen ?? 0);
    }
    expect(new Set(kernels.map((k) => t.gpu[k])).size).toBe(gpus);
  });

  it('puts host-started copies on copy-engine lanes as packets, labelled with their kind', () => {
    const engineHost = run.copies.filter((c) => c.mover === 'engine' && c.initiator === 'host');
    const packets = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_PACKET);
    expect(engineHost.length).toBeGreaterThan(0);
    expect(packets.length + hostOnlyCopies).toBe(engineHost.length);
    for (const e of packets) {
      // CUPTI does not say which copy engine ran a copy.
      expect(t.lane[e]).toBe(ENGINE_UNKNOWN);
      expect(['HtoD', 'DtoH', 'DtoD', 'PtoP']).toContain(labelOf(t, e));
    }
    const index = buildIndex(t, { gpuCus: [132, 132], vendor: 'nvidia' });
    const engineLanes = index.lanes.filter((l) => l.category === 'engine');
    expect(engineLanes.map((l) => l.label)).toEqual(Array(engineLanes.length).fill('Unknown engine'));
    expect(index.lanes.filter((l) => l.category === 'kernel')).toHaveLength(gpus);
    expect(index.lanes.reduce((n, l) => n + l.eventCount, 0)).toBe(t.count);
  });

  it('shows each device-trace transfer inside a launch on its GPU, and gives the launches their bytes', () => {
    const device = run.copies.filter((c) => c.source === 'device-trace');
    const transfers = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_TRANSFER);
    expect(transfers).toHaveLength(device.length);
    for (const e of transfers) {
      expect(labelOf(t, e)).toBe('a2a');
      const mid = (t.startNs[e]! + t.endNs[e]!) / 2;
      expect(kernels.some((k) => t.gpu[k] === t.gpu[e] && t.startNs[k]! <= mid && t.endNs[k]! >= mid)).toBe(true);
    }
    const moved = kernels.reduce((n, k) => n + t.bytes[k]!, 0);
    expect(moved).toBe(device.reduce((n, c) => n + c.bytes, 0));
    for (const k of kernels) if (t.bytes[k]! > 0) expect(t.path[k]).toBe(1); // cu/device, striped like the sweep's
    expect(device.every((c) => pathName(c.mover, c.initiator) === 'cu/device')).toBe(true);
  });

  it('passes the panel message schema, with and without a kernel filter applied to it', () => {
    expect(v.safeParse(TimelineColumnsSchema, t).success).toBe(true);
    const only = filterColumns(t, (e) => t.kind[e] === KIND_KERNEL);
    expect(v.safeParse(TimelineColumnsSchema, only).success).toBe(true);
    expect(labelOf(only, 0)).toBe(labelOf(t, kernels[0]!));
    // Names the page cannot resolve, or half of the pair, are refused before anything is drawn.
    const badIndex = { ...t, label: t.label!.map((l, i) => (i === 0 ? t.labels!.length : l)) };
    expect(v.safeParse(TimelineColumnsSchema, badIndex).success).toBe(false);
    const { labels: _labels, ...noLabels } = t;
    expect(v.safeParse(TimelineColumnsSchema, noLabels).success).toBe(false);
    expect(v.safeParse(TimelineColumnsSchema, { ...t, cus: new Uint32Array(1) }).success).toBe(false);
  });

  it('keeps the launches of one kernel and the events during them when filtered by its name', () => {
    const keep = filterMask(t, parseFilter(kernelFilter([FUSED])));
    const fused = kernels.filter((k) => labelOf(t, k) === FUSED);
    expect(fused.length).toBe(5 * gpus);
    for (const k of kernels) expect(keep[k], labelOf(t, k)).toBe(labelOf(t, k) === FUSED ? 1 : 0);
    for (let e = 0; e < t.count; e++) {
      if (t.kind[e] === KIND_KERNEL || !keep[e]) continue;
      expect(
        fused.some((k) => t.gpu[k] === t.gpu[e] && t.startNs[k]! <= t.endNs[e]! && t.endNs[k]! >= t.startNs[e]!),
      ).toBe(true);
    }
    // The transfers are all made during fused launches; the short name finds the same events.
    for (let e = 0; e < t.count; e++) if (t.kind[e] === KIND_TRANSFER) expect(keep[e]).toBe(1);
    expect(filterMask(t, parseFilter('kernel:fusedComputeA2a'))).toEqual(keep);
    expect(filterMask(t, parseFilter('kernel:"(anonymous namespace)::fusedComputeA2a"'))).toEqual(keep);
    expect(filterMask(t, parseFilter('kernel:noSuchKernel')).every((x) => x === 0)).toBe(true);
  });

  it('names kernels and copies in the Perfetto export, with the transfers on a thread of their own', () => {
    const trace = JSON.parse(
      chromeTraceJson(t, {
        title: 't',
        simulated: false,
        nodeLabel: 'NVIDIA H200',
        vendor: 'nvidia',
        gpuCus: [132, 132],
      }),
    ) as { traceEvents: { ph: string; name: string; args?: Record<string, unknown> }[] };
    const spans = trace.traceEvents.filter((x) => x.ph === 'X');
    expect(spans.filter((x) => x.name === FUSED)).toHaveLength(5 * gpus);
    expect(spans.filter((x) => x.name === FUSED).every((x) => x.args?.cusSeen === 64 / (3 - gpus))).toBe(true);
    expect(spans.some((x) => x.name === 'a2a cu/device')).toBe(true);
    expect(trace.traceEvents.some((x) => x.ph === 'M' && x.args?.name === 'Kernel-started transfers')).toBe(true);
  });
});

describe('run-mode timeline meta and restore key', () => {
  const run = recordedRun('runmode-fused-a2a.ndjson');

  it('round-trips a key naming the run and a filter of names with spaces, commas and templates', () => {
    const focus = {
      filter: kernelFilter(['void ns::k<float, 4>(float*, int)', 'k2 "quoted"']),
      kernel: 'ns::k',
      ambiguous: 'ambiguous: 2 kernels here match k()',
    };
    const key = profileTimelineKey('run-2026-x_cuda', focus);
    expect(parseProfileTimelineKey(key)).toEqual({ runId: 'run-2026-x_cuda', focus });
    expect(parseProfileTimelineKey(profileTimelineKey('r1'))).toEqual({ runId: 'r1' });
    expect(parseProfileTimelineKey('r1/run-mode?filter=%E0%A4%A')).toBeUndefined();
    expect(parseProfileTimelineKey('../x/run-mode')).toBeUndefined();
    expect(parseProfileTimelineKey('r1/timeline.sdmatl')).toBeUndefined();
  });

  it('titles the timeline by program and kernel, says when the kernel is ambiguous, and labels simulated runs', () => {
    const meta = profileTimelineMeta(run, 'k', {
      filter: 'kernel:k',
      kernel: 'ns::k',
      ambiguous: 'ambiguous: 2 kernels here match k()',
    });
    expect(meta.title).toBe('Run timeline · ./fused_a2a 8 5 · kernel ns::k (ambiguous: 2 kernels here match k())');
    expect(meta).toMatchObject({
      filter: 'kernel:k',
      simulated: false,
      vendor: 'nvidia',
      gpuCus: [132, 132],
      sizeBytes: 0,
    });
    const sim = newRun({ ...header('sim'), command: 'run' });
    applyRecord(sim, {
      type: 'hello',
      protocol: 1,
      helper: { name: 'sdma-probe', version: '0.1.0' },
      command: 'run',
      backend: 'sim',
      simulated: true,
      backendsBuilt: ['sim'],
      pid: 1,
    });
    expect(profileTimelineMeta(sim, 'k').simulated).toBe(true);
  });
});

describe('CU lanes of a run from its device-span records', () => {
  const launch = (name: string, gpu: number, startNs: number, endNs: number): Dispatch => ({
    type: 'dispatch',
    name,
    gpu,
    startNs,
    endNs,
    grid: [8, 1, 1],
    block: [256, 1, 1],
    source: 'cupti',
    cusSeen: 2,
  });
  const span = (over: Partial<DeviceSpan>): DeviceSpan => ({
    type: 'device-span',
    gpu: 0,
    cu: 0,
    xcc: 0,
    label: 'a2a',
    startNs: 0,
    endNs: 0,
    bytes: 0,
    peer: -1,
    mover: 'cu',
    pull: false,
    ...over,
  });
  // GPU 0 runs `step` then `other`; GPU 1 runs `step` at the same time as GPU 0's.
  const launches = [launch('step', 0, 1000, 5000), launch('other', 0, 8000, 9000), launch('step', 1, 1000, 5000)];
  const spans = [
    span({ cu: 3, startNs: 1200, endNs: 2000, label: 'compute' }),
    span({ cu: 3, startNs: 2000, endNs: 4800, bytes: 4096, peer: 1 }),
    span({ cu: 3, xcc: 2, startNs: 1300, endNs: 4700, bytes: 8192, peer: 1, mover: 'engine' }),
    span({ cu: 17, startNs: 8100, endNs: 8900, label: 'other-work' }),
    span({ gpu: 1, cu: 3, startNs: 1500, endNs: 4000, bytes: 1024, peer: 0, pull: true }),
  ];
  function spanRun(records: readonly (Dispatch | DeviceSpan)[] = [...launches, ...spans]) {
    const run = recordedRun('runmode-fused-a2a.ndjson');
    run.dispatches = [];
    run.copies = [];
    for (const r of records) {
      const checked = validateRecord(JSON.parse(JSON.stringify(r)));
      if (checked.kind !== 'record') throw new Error(JSON.stringify(checked));
      applyRecord(run, checked.record);
    }
    return run;
  }

  it('adds one cu event per span on its GPU, on lane XCC x 1024 + CU, with its label, times and bytes, coloured by path', () => {
    const { columns: t } = profileTimeline(spanRun());
    const cu = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_CU);
    expect(cu).toHaveLength(spans.length);
    spans.forEach((s, i) => {
      const e = cu[i]!;
      expect([t.gpu[e], t.lane[e], t.startNs[e], t.endNs[e], t.bytes[e], labelOf(t, e)]).toEqual([
        s.gpu,
        cuLane(s.xcc, s.cu),
        s.startNs,
        s.endNs,
        s.bytes,
        s.label,
      ]);
      expect(PATHS[t.path[e]!]).toBe(s.peer < 0 ? 'cu/host' : pathName(s.mover, 'device'));
    });
    expect(new Set(Array.from(t.id)).size).toBe(t.count);
    expect(v.safeParse(TimelineColumnsSchema, t).success).toBe(true);
  });

  it('gives each GPU its CU lanes and an occupancy strip over the CUs the topology names', () => {
    const run = spanRun();
    const { columns: t } = profileTimeline(run);
    const meta = profileTimelineMeta(run, 'k');
    expect(meta.gpuCus).toEqual(run.topology!.gpus.map((g) => g.cus));
    // The spans are AMD-shaped (an XCC above 0): label the lanes as on an AMD node.
    const index = buildIndex(t, { gpuCus: meta.gpuCus, vendor: 'amd' });
    expect(index.lanes.filter((l) => l.category === 'cu').map((l) => [l.gpu, l.number, l.label, l.eventCount])).toEqual(
      [
        [0, 3, 'CU 3', 2],
        [0, 17, 'CU 17', 1],
        [0, 2051, 'XCC 2 CU 3', 1],
        [1, 3, 'CU 3', 1],
      ],
    );
    expect(index.heat.map((h) => [h.gpu, h.cuLanes.length, h.cuCount])).toEqual([
      [0, 3, meta.gpuCus[0]],
      [1, 1, meta.gpuCus[1]],
    ]);
    expect(buildIndex(t, meta).lanes.find((l) => l.category === 'cu')?.label).toBe('SM 3');
  });

  it('keeps the spans that fall in the launches the kernel filter keeps, and drops the others', () => {
    const { columns: t } = profileTimeline(spanRun());
    const keep = filterMask(t, parseFilter('kernel:step'));
    for (let e = 0; e < t.count; e++) {
      if (t.kind[e] !== KIND_CU) continue;
      expect(keep[e], `${labelOf(t, e)} on GPU ${t.gpu[e]}`).toBe(labelOf(t, e) === 'other-work' ? 0 : 1);
    }
    const other = filterMask(t, parseFilter('kernel:other'));
    for (let e = 0; e < t.count; e++)
      if (t.kind[e] === KIND_CU) expect(other[e]).toBe(labelOf(t, e) === 'other-work' ? 1 : 0);
    // The cu: term names a lane the way the timeline numbers it.
    const lane = filterMask(t, parseFilter('cu:2051'));
    expect([...Array(t.count).keys()].filter((e) => lane[e])).toEqual(
      [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_CU && t.lane[e] === 2051),
    );
  });

  it('exports the spans to Perfetto on a thread per CU, named by label and path, with their bytes', () => {
    const { columns: t } = profileTimeline(spanRun());
    const trace = JSON.parse(
      chromeTraceJson(t, { title: 't', simulated: false, nodeLabel: 'n', vendor: 'amd', gpuCus: [256, 256] }),
    ) as {
      traceEvents: {
        ph: string;
        name: string;
        pid: number;
        tid: number;
        cat?: string;
        args?: Record<string, unknown>;
      }[];
    };
    const thread = trace.traceEvents.find(
      (x) => x.ph === 'M' && x.name === 'thread_name' && x.pid === 0 && x.args?.name === 'XCC 2 CU 3',
    );
    expect(thread).toBeDefined();
    const cuSpans = trace.traceEvents.filter((x) => x.ph === 'X' && x.cat === 'cu');
    expect(cuSpans.map((x) => x.name)).toEqual(
      spans.map((s) => `${s.label} ${s.peer < 0 ? 'cu/host' : pathName(s.mover, 'device')}`),
    );
    expect(cuSpans.find((x) => x.tid === thread!.tid)).toMatchObject({
      name: 'a2a engine/device',
      args: { bytes: 8192 },
    });
  });

  it('says in the title when the helper capped the spans, so CU lanes that end early are not read as idle CUs', () => {
    const run = spanRun();
    expect(profileTimelineMeta(run, 'k').title).not.toContain('CU lanes');
    run.warnings.push({
      type: 'warning',
      code: 'device-spans-capped',
      message: '10 of 15 device-trace spans (after merging) were not sent',
    });
    expect(profileTimelineMeta(run, 'k').title).toBe('Run timeline · ./fused_a2a 8 5 · CU lanes: first 5 spans only');
  });

  it('keeps thousands of spans as columns that read back what arrived, and a run without spans has no cu events', () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      span({
        gpu: i % 2,
        cu: i % 132,
        startNs: i * 10,
        endNs: i * 10 + 7,
        bytes: i,
        peer: 1 - (i % 2),
        label: `l${i % 3}`,
      }),
    );
    const run = spanRun([launches[0]!, ...many]);
    expect(run.deviceSpans!.count).toBe(3000);
    expect(run.deviceSpans!.labels).toEqual(['l0', 'l1', 'l2']);
    const { columns: t } = profileTimeline(run);
    const cu = [...Array(t.count).keys()].filter((e) => t.kind[e] === KIND_CU);
    expect(cu.map((e) => [t.gpu[e], t.lane[e], t.startNs[e], t.endNs[e], t.bytes[e], labelOf(t, e)])).toEqual(
      many.map((s) => [s.gpu, s.cu, s.startNs, s.endNs, s.bytes, s.label]),
    );
    expect(profileTimeline(spanRun(launches)).columns.kind.includes(KIND_CU)).toBe(false);
  });
});
