/**
 * Run mode around a real multi-process NCCL program on 2x H200: torch.distributed's AllGather
 * and AlltoAll under torchrun, recorded with `--library-log`
 * (bench/device/run-h200-runmode-nccl.sh, kept in bench/results/h200x2-runmode-nccl-2026-11-30/).
 */
import { describe, expect, it } from 'vitest';
import type { Dispatch, LibraryCalls } from '../../src/core/protocol';
import { libraryCallLines } from '../../src/core/profile/libraryCalls';
import { expectRunOrder, recordedRecords } from './run';

const load = (name: string) => recordedRecords('bench', 'results', 'h200x2-runmode-nccl-2026-11-30', name);

describe('run mode around torchrun on 2x H200 (recorded)', () => {
  const rs = load('runmode-nccl.ndjson');
  const dispatches = rs.filter((r): r is Dispatch => r.type === 'dispatch');
  const calls = rs.filter((r): r is LibraryCalls => r.type === 'library-calls');

  it('every line validates, in the documented order; the program passed', () => {
    expectRunOrder(rs);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'run', backend: 'cuda', simulated: false });
    expect(rs.find((r) => r.type === 'program' && r.event === 'exit')).toMatchObject({ exitCode: 0 });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it("the workers torchrun started are traced on both GPUs, with NCCL's own kernels among their launches", () => {
    expect(new Set(dispatches.map((d) => d.gpu))).toEqual(new Set([0, 1]));
    expect(dispatches.every((d) => d.source === 'cupti')).toBe(true);
    const allGather = dispatches.filter((d) => d.name.startsWith('ncclDevKernel_AllGather'));
    // 4 sizes x (2 warm-up + 5 timed) calls, on each of the two ranks.
    expect(allGather).toHaveLength(4 * 7 * 2);
    // torch's all_to_all_single runs as NCCL send/receive pairs.
    expect(dispatches.filter((d) => d.name.startsWith('ncclDevKernel_SendRecv'))).toHaveLength(4 * 7 * 2);
    // Through the pipe alone (before the trace file), the same program showed no launch at all.
    expect(load('runmode-nccl-pipe-only.ndjson').filter((r) => r.type === 'dispatch')).toEqual([]);
  });

  it('the library log says which algorithm and protocol each AllGather size took', () => {
    const ag = calls.filter((c) => c.op === 'AllGather');
    expect(ag.map((c) => [c.minBytes, c.transport, c.calls])).toEqual([
      [32768, 'ring/ll', 7],
      [524288, 'ring/ll', 7],
      [8388608, 'ring/simple', 7],
      [134217728, 'ring/simple', 7],
    ]);
    expect(ag.every((c) => c.library === 'nccl' && c.evidence.includes('-> Algo RING proto'))).toBe(true);
    const lines = libraryCallLines(calls);
    expect(lines[0]).toMatch(/^AllGather \(NCCL\): 28 calls, 14 via ring\/ll .*, 14 via ring\/simple /);
  });

  it("a user's own NCCL_DEBUG is left alone: a warning, no library-calls", () => {
    const user = load('runmode-nccl-user-debug.ndjson');
    expect(user.filter((r) => r.type === 'library-calls')).toEqual([]);
    expect(user.some((r) => r.type === 'warning' && r.code === 'library-log-user-set')).toBe(true);
  });
});
