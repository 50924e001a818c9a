import { describe, expect, it } from 'vitest';
import { describeCollectiveUse, libraryCallLines, summarizeLibraryCalls } from '../../src/core/profile/libraryCalls';
import type { LibraryCalls } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { applyRecord, newRun, runHeader } from '../../src/core/run';

const KiB = 1024;
const MiB = 1024 * KiB;

function calls(
  transport: string,
  minBytes: number,
  maxBytes: number,
  n: number,
  extra: Partial<LibraryCalls> = {},
): LibraryCalls {
  return {
    type: 'library-calls',
    library: 'rccl',
    op: 'AllToAll',
    transport,
    sizeKind: 'bytesPerPeer',
    minBytes,
    maxBytes,
    calls: n,
    ranks: 8,
    evidence: `AllToAll GIN: transport=${transport} bytesPerPeer=${minBytes}`,
    ...extra,
  };
}

describe('the library-calls summary', () => {
  it('one line per collective: its calls, then each path with its size range, most calls first', () => {
    const records = [
      calls('lsa', 128 * KiB, 128 * KiB, 1),
      calls('sdma', 512 * KiB, 1023 * KiB, 20),
      calls('lsa', 256 * KiB, 256 * KiB, 1),
      calls('sdma', 32 * MiB, 64 * MiB, 18),
    ];
    expect(libraryCallLines(records)).toEqual([
      'AllToAll (RCCL): 40 calls, 38 via sdma (512 KiB-64 MiB per peer), 2 via lsa (128 KiB-256 KiB per peer)',
    ]);
  });

  it("NCCL's tuner sizes are whole-call bytes, not per peer; one size is not a range", () => {
    const ag = {
      ...calls('ring/simple', MiB, MiB, 1),
      library: 'nccl' as const,
      op: 'AllGather',
      sizeKind: 'bytes' as const,
    };
    expect(describeCollectiveUse(summarizeLibraryCalls([ag])[0]!)).toBe(
      'AllGather (NCCL): 1 call, 1 via ring/simple (1 MiB)',
    );
  });

  it('collectives stay apart, in the order first seen; no library, no sizes: nothing made up', () => {
    const bare: LibraryCalls = {
      type: 'library-calls',
      op: 'AllGather',
      transport: 'ce',
      calls: 3,
      ranks: 1,
      evidence: 'x',
    };
    const lines = libraryCallLines([calls('sdma', MiB, MiB, 2), bare, calls('sdma', 2 * MiB, 2 * MiB, 1)]);
    expect(lines).toEqual([
      'AllToAll (RCCL): 3 calls, 3 via sdma (1 MiB-2 MiB per peer)',
      'AllGather: 3 calls, 3 via ce',
    ]);
  });

  it('sizes of different kinds on one path are not merged into one range', () => {
    const perPeer = calls('ring/simple', MiB, MiB, 1);
    const whole = { ...calls('ring/simple', 8 * MiB, 8 * MiB, 2), sizeKind: 'bytes' as const };
    expect(libraryCallLines([perPeer, whole])).toEqual([
      'AllToAll (RCCL): 3 calls, 2 via ring/simple (8 MiB), 1 via ring/simple (1 MiB per peer)',
    ]);
  });

  it('a run without library-calls records has no lines', () => {
    expect(libraryCallLines(undefined)).toEqual([]);
    expect(libraryCallLines([])).toEqual([]);
  });

  it('records are validated and folded into the run', () => {
    const run = newRun(runHeader('r1', 'run', '/x/sdma-probe', ['run', '--library-log', '--', 'p']));
    const line = JSON.stringify(calls('sdma', MiB, MiB, 4));
    const parsed = parseLine(line);
    expect(parsed.kind).toBe('record');
    if (parsed.kind === 'record') applyRecord(run, parsed.record);
    expect(run.libraryCalls).toHaveLength(1);
    expect(parseLine(JSON.stringify({ ...calls('sdma', MiB, MiB, 4), calls: 0 })).kind).toBe('malformed');
    expect(parseLine(JSON.stringify({ ...calls('sdma', MiB, MiB, 4), sizeKind: 'perRank' })).kind).toBe('malformed');
    expect(parseLine(JSON.stringify({ ...calls('sdma', MiB, MiB, 4), library: 'mscclpp' })).kind).toBe('malformed');
  });
});
