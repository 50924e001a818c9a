/**
 * CU lanes from a real GPU: examples/fused-a2a-cuda on 2x H200 with its device-trace spans
 * (bench/device/run-h200-runmode.sh, kept in bench/results/h200x2-runmode-spans-2026-11-30/).
 * The spans agree with what the helper folded from them, and the run's timeline draws them.
 */
import { describe, expect, it } from 'vitest';
import type { CopyOp, DeviceSpan, Dispatch } from '../../src/core/protocol';
import { applyRecord, newRun, runHeader } from '../../src/core/run';
import { profileTimeline } from '../../src/core/profile/profileTimeline';
import { KIND_CU } from '../../src/core/timeline/timelineModel';
import { expectRunOrder, recordedRecords } from './run';

const load = (name: string) => recordedRecords('bench', 'results', 'h200x2-runmode-spans-2026-11-30', name);

describe('device-trace spans of fused-a2a on 2x H200 (recorded)', () => {
  const rs = load('runmode-fused-a2a-spans.ndjson');
  const spans = rs.filter((r): r is DeviceSpan => r.type === 'device-span');
  const dispatches = rs.filter((r): r is Dispatch => r.type === 'dispatch');
  const copies = rs.filter((r): r is CopyOp => r.type === 'copy');

  it('every line validates in the documented order; the program passed its own check', () => {
    expectRunOrder(rs);
    expect(rs.find((r) => r.type === 'program' && r.event === 'exit')).toMatchObject({ exitCode: 0 });
    expect(rs.filter((r) => r.type === 'warning')).toEqual([]);
  });

  it('the spans name the SMs the launches were seen on, and carry exactly the bytes of the kernel-started copies', () => {
    for (const gpu of [0, 1]) {
      const mine = spans.filter((s) => s.gpu === gpu);
      const sms = new Set(mine.map((s) => s.cu));
      expect(sms.size).toBe(132);
      expect(Math.max(...dispatches.filter((d) => d.gpu === gpu).map((d) => d.cusSeen ?? 0))).toBe(sms.size);
    }
    const spanBytes = spans.reduce((sum, s) => sum + s.bytes, 0);
    const deviceCopyBytes = copies.filter((c) => c.initiator === 'device').reduce((sum, c) => sum + c.bytes, 0);
    expect(spanBytes).toBe(deviceCopyBytes);
    expect(spanBytes).toBeGreaterThan(0);
  });

  it("the run's timeline puts one CU event per span on its SM's lane", () => {
    const run = newRun(runHeader('h200-spans', 'run', 'sdma-probe', ['run', '--backend', 'cuda', '--', './fused_a2a']));
    for (const r of rs) applyRecord(run, r);
    const { columns } = profileTimeline(run);
    const cu: number[] = [];
    for (let i = 0; i < columns.count; i++) if (columns.kind[i] === KIND_CU) cu.push(i);
    expect(cu).toHaveLength(spans.length);
    expect(new Set(cu.map((i) => `${columns.gpu[i]}:${columns.lane[i]}`)).size).toBe(2 * 132);
  });

  it('capped at 100: the first 100 spans in time order and a warning that says how many were left out', () => {
    const capped = load('runmode-fused-a2a-spans-capped.ndjson');
    const kept = capped.filter((r): r is DeviceSpan => r.type === 'device-span');
    expect(kept).toHaveLength(100);
    const starts = kept.map((s) => s.startNs);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    const warning = capped.find((r) => r.type === 'warning' && r.code === 'device-spans-capped');
    expect(warning && warning.type === 'warning' ? warning.message : '').toMatch(/^\d+ of \d+ device-trace spans/);
  });
});
