/**
 * The parsers of src/core/imports on the fixtures of test/fixtures/imports: every headline
 * number the tool printed (a Transfer's GB/s, a testcase's GB/s, a row's time, algbw and
 * busbw) comes back as the imported value, read here from the file by a reader of the test's
 * own, and every part that does not map is a note, never a sample. The numbers round-tripped
 * are printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathName, validateRecord } from '../../src/core/protocol';
import type { ImportedRun } from '../../src/core/imports/importedRun';
import { parseNcclTestsJson, parseNcclTestsText } from '../../src/core/imports/ncclTestsOutput';
import {
  NVBANDWIDTH_DEFAULT_BUFFER_BYTES,
  parseNvbandwidthJson,
  parseNvbandwidthText,
} from '../../src/core/imports/nvbandwidth';
import { parseTransferBench } from '../../src/core/imports/transferBench';

const fixture = (...p: string[]) => join(__dirname, '..', 'fixtures', 'imports', ...p);
const read = (...p: string[]) => readFileSync(fixture(...p), 'utf8');

function expectValidRecords(r: ImportedRun) {
  for (const rec of [...(r.topology ? [r.topology] : []), ...r.samples, ...r.collectives, ...r.notes])
    expect(validateRecord(rec)).toMatchObject({ kind: 'record' });
}

/** The test's own reading of TransferBench result blocks: per Test, its Transfer lines' fields as printed. */
function transferBenchTests(text: string): { gbps: string; ms: string; bytes: string; route: string }[][] {
  const tests: { gbps: string; ms: string; bytes: string; route: string }[][] = [];
  let open = false;
  for (const line of text.split('\n')) {
    const fields = line.split(/[|,]/).map((f) => f.trim());
    if (fields[0]?.startsWith('Executor:') && !open) {
      tests.push([]);
      open = true;
    } else if (fields[0]?.startsWith('Transfer ')) {
      tests.at(-1)!.push({
        gbps: fields[1]!.replace(' GB/s', ''),
        ms: fields[2]!.replace(' ms', ''),
        bytes: fields[3]!.replace(' bytes', ''),
        route: fields[4]!,
      });
    } else if (fields[0]?.startsWith('Aggregate (CPU)')) open = false;
  }
  return tests;
}

describe('TransferBench', () => {
  for (const name of [
    'h200x1-64K.txt',
    'h200x1-1M.txt',
    'h200x1-16M.txt',
    'h200x1-64K.csv',
    'h200x1-1M.csv',
    'h200x1-16M.csv',
  ]) {
    it(`${name}: every Transfer's GB/s and size as printed; the mean time to the digits of both printed figures`, () => {
      const text = read('transferbench', name);
      const r = parseTransferBench(text, name);
      expectValidRecords(r);
      expect(r.source).toEqual({
        tool: 'TransferBench',
        format: name.endsWith('.csv') ? 'csv' : 'text',
        file: name,
        version: 'v1.52',
      });
      expect(r.command).toBe('sweep');
      const tests = transferBenchTests(text);
      // The config: ten Tests of one Transfer each, all on GPU 0 and host NUMA node 0.
      expect(tests.map((t) => t.length)).toEqual(Array(10).fill(1));
      expect(r.samples).toHaveLength(10);
      const rows: string[] = [];
      r.samples.forEach((s, i) => {
        const t = tests[i]![0]!;
        expect(s.gbps).toBe(Number(t.gbps));
        expect(s.sizeBytes).toBe(Number(t.bytes));
        expect(Math.abs(s.sizeBytes / s.meanNs - s.gbps)).toBeLessThan(1e-12 * s.gbps);
        // meanNs = bytes / GB/s, TransferBench's own definition; its printed ms (3 decimals) agrees to the rounding of both.
        const slack = 0.0005 + (s.sizeBytes * 0.0005) / s.gbps ** 2 / 1e6;
        expect(Math.abs(s.meanNs / 1e6 - Number(t.ms))).toBeLessThanOrEqual(slack + 1e-12);
        const [src, exe, dst] = t.route.split(' -> ');
        expect(s.mover).toBe(exe!.startsWith('DMA') ? 'engine' : 'cu');
        expect(s.cus).toBe(exe!.startsWith('DMA') ? 0 : Number(exe!.split(':')[1]));
        expect(s.src).toBe(src === 'C0' ? -1 : 0);
        expect(s.dst).toBe(dst === 'C0' ? -1 : 0);
        expect(s.label).toBe(src === 'C0' || dst === 'C0' ? 'host-numa-0' : undefined);
        expect(s).toMatchObject({ initiator: 'host', iters: 10, validated: true });
        rows.push(
          `${t.route.padEnd(26)} ${t.gbps.padStart(8)} GB/s printed -> ${s.gbps} imported (${pathName(s.mover, s.initiator)}, ${s.cus} CUs, ${s.sizeBytes} B)`,
        );
      });
      console.log(`${name}\n  ${rows.join('\n  ')}`);
      // No GPU is named anywhere in TransferBench's Test output: no topology, said once.
      expect(r.topology).toBeUndefined();
      expect(r.notes.map((n) => n.code)).toEqual(['import-unmapped']);
      expect(r.unmappedWhy).toEqual([]);
    });
  }

  it('SHOW_ITERATIONS: per-iteration times, spread and fastest GB/s as printed; every Test that is not one alone-running copy on its own GPU is a note', () => {
    const text = read('transferbench', 'mi300x-show-iterations.txt');
    const r = parseTransferBench(text, 'mi300x-show-iterations.txt');
    expectValidRecords(r);
    const tests = transferBenchTests(text);
    expect(tests).toHaveLength(7);
    // Tests 1, 2 and 5 map; 3 (two Transfers at once), 4 (CPU executor), 6 (GPU 1 pulls), 7 (memset from N) do not.
    expect(r.samples.map((s) => [pathName(s.mover, s.initiator), s.src, s.dst, s.cus, s.gbps])).toEqual([
      ['engine/host', 0, 1, 0, Number(tests[0]![0]!.gbps)],
      ['cu/host', 0, 1, 8, Number(tests[1]![0]!.gbps)],
      ['engine/host', -1, 0, 0, Number(tests[4]![0]!.gbps)],
    ]);
    expect(r.samples[2]).toMatchObject({ engineIds: [1], label: 'host-numa-0' });
    // The Iter lines, read again here: sorted by time in the file, by iteration in the sample.
    const iterations = (test: number) => {
      const block = text.split(/^Test \d+:$/m)[test]!;
      return [...block.matchAll(/^\s+Iter (\d+)\s+\|\s+(\S+) GB\/s \|\s+(\S+) ms/gm)].map((m) => ({
        i: Number(m[1]),
        gbps: Number(m[2]),
        ms: Number(m[3]),
      }));
    };
    for (const [k, test] of [
      [0, 1],
      [1, 2],
      [2, 5],
    ] as const) {
      const its = iterations(test);
      const s = r.samples[k]!;
      expect(s.iters).toBe(5);
      expect(s.timesNs).toEqual([...its].sort((a, b) => a.i - b.i).map((x) => x.ms * 1e6));
      expect(s.minNs).toBe(Math.min(...its.map((x) => x.ms)) * 1e6);
      expect(s.maxNs).toBe(Math.max(...its.map((x) => x.ms)) * 1e6);
      expect(s.gbpsMax).toBe(Math.max(...its.map((x) => x.gbps)));
      const sd = /StandardDev \|\s+\S+ GB\/s \|\s+(\S+) ms/.exec(text.split(/^Test \d+:$/m)[test]!)![1]!;
      expect(s.stdevNs).toBe(Number(sd) * 1e6);
      console.log(
        `test ${test}: ${s.timesNs!.map((t) => t / 1e6).join(', ')} ms, fastest ${s.gbpsMax} GB/s, sd ${sd} ms`,
      );
    }
    expect(r.samples[1]!.cusSeen).toBe(8);
    const unmapped = r.notes.filter((n) => n.code === 'import-unmapped').map((n) => n.message);
    expect(unmapped.filter((m) => /^test 3 .*several Transfers ran at the same time/.test(m))).toHaveLength(1);
    expect(unmapped.some((m) => /^test 4, .*CPU executor/.test(m))).toBe(true);
    expect(unmapped.some((m) => /^test 6, transfer 00: G0 -> GPU01:008 -> G1, .*another GPU/.test(m))).toBe(true);
    expect(unmapped.some((m) => /^test 7, transfer 00: N -> GPU00:032 -> G0, .*no memory/.test(m))).toBe(true);
    // The printed figures of what did not map stay in the notes.
    expect(unmapped.find((m) => m.startsWith('test 4,'))).toContain(`${tests[3]![0]!.gbps} GB/s`);
  });

  it('hidden environment (HIDE_ENV=1): the default iteration count is taken and said; NUM_ITERATIONS in seconds maps nothing', () => {
    const full = read('transferbench', 'h200x1-1M.txt');
    const hidden = full.replace(/^\[Common\][\s\S]*?^VALIDATE_DIRECT.*\n/m, '');
    const r = parseTransferBench(hidden, 'hidden.txt');
    expect(r.samples).toHaveLength(10);
    expect(r.samples.every((s) => s.iters === 10)).toBe(true);
    expect(r.notes.find((n) => n.code === 'import-assumed')?.message).toMatch(/NUM_ITERATIONS .* default, 10/);
    const timed = parseTransferBench(
      full.replace(
        /^NUM_ITERATIONS\s+=\s+10 :.*$/m,
        'NUM_ITERATIONS       =           -3 : Running 3 seconds(s) per Test',
      ),
      'timed.txt',
    );
    expect(timed.samples).toEqual([]);
    expect(timed.unmappedWhy).toEqual([{ why: 'the number of timed iterations is not printed', parts: 10 }]);
  });

  it('a Transfer whose destination check failed (CONTINUE_ON_ERROR=1) is a note, not a sample', () => {
    const full = read('transferbench', 'h200x1-1M.txt');
    const broken = full.replace(
      'Test 2:\n',
      'Test 2:\n[ERROR] Unexpected mismatch at index 5 of destination array 0:\n[ERROR] Failed Transfer details: #0: C0 -> [G0:1] -> G0\n',
    );
    const r = parseTransferBench(broken, 'broken.txt');
    expect(r.samples).toHaveLength(9);
    expect(r.notes.some((n) => n.code === 'import-unmapped' && /^test 2, .*wrong bytes/.test(n.message))).toBe(true);
    expect(r.notes.some((n) => n.code === 'import-source-warning' && n.message.includes('Unexpected mismatch'))).toBe(
      true,
    );
  });
});

describe('nvbandwidth', () => {
  /** The test's own reading: after "Running NAME.", the value in the matrix's one row. */
  function printedValues(text: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const m of text.matchAll(/^Running (\w+)\.\n[^\n]*\n[^\n]*\n\s*0\s+(\S+)\n/gm)) out.set(m[1]!, m[2]!);
    return out;
  }

  it('text: the five testcases with an SDMA Lens path, GB/s as printed, endpoints and movers by testcase', () => {
    const text = read('nvbandwidth', 'h200x1.txt');
    const r = parseNvbandwidthText(text, 'h200x1.txt');
    expectValidRecords(r);
    expect(r.source).toEqual({ tool: 'nvbandwidth', format: 'text', file: 'h200x1.txt', version: 'v0.8' });
    const printed = printedValues(text);
    expect(printed.size).toBe(5);
    const want: Record<string, [string, number, number]> = {
      host_to_device_memcpy_ce: ['engine/host', -1, 0],
      device_to_host_memcpy_ce: ['engine/host', 0, -1],
      host_to_device_memcpy_sm: ['cu/host', -1, 0],
      device_to_host_memcpy_sm: ['cu/host', 0, -1],
      device_local_copy: ['engine/host', 0, 0],
    };
    expect(r.samples.map((s) => [pathName(s.mover, s.initiator), s.src, s.dst, s.gbps])).toEqual(
      [...printed].map(([name, v]) => [...want[name]!, Number(v)]),
    );
    for (const s of r.samples) {
      expect(s.sizeBytes).toBe(NVBANDWIDTH_DEFAULT_BUFFER_BYTES);
      expect(Math.abs(s.sizeBytes / s.meanNs - s.gbps)).toBeLessThan(1e-12 * s.gbps);
      expect(s).toMatchObject({ iters: 3, validated: false, cus: 0 });
    }
    console.log(
      [...printed]
        .map(
          ([n, v]) =>
            `${n}: ${v} GB/s printed -> ${r.samples.find((s) => want[n]![1] === s.src && want[n]![2] === s.dst && pathName(s.mover, s.initiator) === want[n]![0])!.gbps}`,
        )
        .join('\n'),
    );
    expect(r.topology).toMatchObject({
      node: { name: 'vm', vendor: 'nvidia', model: 'NVIDIA H200', simulated: false },
      gpus: [{ index: 0, name: 'NVIDIA H200', pciBusId: '00000000:00:06', arch: '', cus: 0 }],
      libraries: [{ name: 'nvidia-driver', version: '580.159.04' }],
    });
    // What the output does not print is said, once each: the buffer size, the sample count, the SM count.
    expect(r.notes.map((n) => n.code)).toEqual(['import-assumed', 'import-assumed', 'import-assumed']);
  });

  it('JSON: the same testcases at six significant digits; a waived testcase is a note', () => {
    const json: unknown = JSON.parse(read('nvbandwidth', 'h200x1.json'));
    const r = parseNvbandwidthJson(json, 'h200x1.json');
    expectValidRecords(r);
    expect(r.source).toEqual({ tool: 'nvbandwidth', format: 'json', file: 'h200x1.json', version: 'v0.8' });
    const cases = (json as { nvbandwidth: { testcases: { name: string; bandwidth_matrix?: string[][] }[] } })
      .nvbandwidth.testcases;
    expect(r.samples.map((s) => s.gbps)).toEqual(
      cases.filter((c) => c.bandwidth_matrix).map((c) => Number(c.bandwidth_matrix![0]![0])),
    );
    // The JSON's values round to the text's two decimals: one run, two forms.
    const text = parseNvbandwidthText(read('nvbandwidth', 'h200x1.txt'), 'h200x1.txt');
    expect(r.samples.map((s) => s.gbps.toFixed(2))).toEqual(text.samples.map((s) => s.gbps.toFixed(2)));
    expect(r.unmappedWhy).toEqual([{ why: 'nvbandwidth reported "Waived"', parts: 1 }]);
    expect(r.topology?.node.name).toBe('vm');
  });

  it('a buffer smaller than the default, not printed: no sample, unless the size is given', () => {
    const text = read('nvbandwidth', 'h200x1.txt').replace(
      'Device 0:',
      'NOTE: You have chosen a buffer size that is smaller than the default buffer size. It is suggested to use the default buffer size (64MB) to achieve maximal peak bandwidth.\nDevice 0:',
    );
    expect(parseNvbandwidthText(text, 'small.txt').samples).toEqual([]);
    const given = parseNvbandwidthText(text, 'small.txt', { bufferBytes: 64 * 1024 * 1024 });
    expect(given.samples.map((s) => s.sizeBytes)).toEqual(Array(5).fill(64 * 1024 * 1024));
    expect(given.notes.some((n) => /prints no buffer size/.test(n.message))).toBe(false);
  });
});

/** The test's own reading of an nccl-tests table: per row, size, count and each placement's time, algbw, busbw, #wrong. */
function ncclRows(text: string): { size: string; count: string; out: string[]; in: string[] }[] {
  return text
    .split('\n')
    .filter((l) => /^\s+\d+\s+\d+\s+\w+/.test(l))
    .map((l) => l.trim().split(/\s+/))
    .map((t) => ({ size: t[0]!, count: t[1]!, out: t.slice(5, 9), in: t.slice(9, 13) }));
}

describe('nccl-tests / rccl-tests', () => {
  it('real alltoall on one H200: every row a point (one rank, so busbw 0), each headline number as printed', () => {
    const text = read('nccl-tests', 'alltoall-g1.txt');
    const r = parseNcclTestsText(text, 'alltoall-g1.txt');
    expectValidRecords(r);
    expect(r.source).toEqual({ tool: 'nccl-tests', format: 'text', file: 'alltoall-g1.txt', version: '2.19.6' });
    const rows = ncclRows(text);
    expect(rows).toHaveLength(7);
    expect(r.collectives).toHaveLength(14);
    rows.forEach((row, i) => {
      const [out, inPlace] = [r.collectives[2 * i]!, r.collectives[2 * i + 1]!];
      expect(out).toMatchObject({
        op: 'alltoall',
        ranks: 1,
        sizeBytes: Number(row.size),
        inPlace: false,
        timeUs: Number(row.out[0]),
        algbwGbps: Number(row.out[1]),
        busbwGbps: Number(row.out[2]),
      });
      expect(inPlace).toMatchObject({
        inPlace: true,
        timeUs: Number(row.in[0]),
        algbwGbps: Number(row.in[1]),
        busbwGbps: Number(row.in[2]),
      });
      console.log(
        `nccl-tests text ${row.size} B: out-of-place ${row.out[0]} us ${row.out[1]} GB/s -> ${out.timeUs} us ${out.algbwGbps} GB/s; in-place ${row.in[0]} us ${row.in[1]} GB/s -> ${inPlace.timeUs} us ${inPlace.algbwGbps} GB/s`,
      );
    });
    expect(r.unmappedWhy).toEqual([]);
    expect(r.topology).toMatchObject({
      node: { name: 'vm', vendor: 'nvidia', model: 'NVIDIA H200' },
      gpus: [{ index: 0, pciBusId: '0000:00:06' }],
      libraries: [{ name: 'nccl', version: '2.28.9' }],
    });
  });

  it('real alltoall -J JSON: the same points, with the command line from args', () => {
    const r = parseNcclTestsJson(JSON.parse(read('nccl-tests', 'alltoall-g1.json')), 'alltoall-g1.json');
    expectValidRecords(r);
    expect(r.source).toEqual({
      tool: 'nccl-tests',
      format: 'json',
      file: 'alltoall-g1.json',
      commandLine:
        '/tmp/nt/build/alltoall_perf -b 64K -e 256M -f 4 -g 1 -n 20 -w 5 -J /root/out/nccltests/alltoall-g1.json',
    });
    expect(r.collectives).toHaveLength(14);
    expect(r.collectives[0]).toMatchObject({
      sizeBytes: 65536,
      inPlace: false,
      ranks: 1,
      timeUs: 7.7603,
      algbwGbps: 8.445034,
    });
  });

  it('rccl-tests alltoall text, 8 ranks: every row and placement as printed; the size-0 row is a note', () => {
    const text = read('rccl-tests', 'mi300x-alltoall.txt');
    const r = parseNcclTestsText(text, 'mi300x-alltoall.txt');
    expectValidRecords(r);
    expect(r.source).toMatchObject({ tool: 'rccl-tests', format: 'text', version: '2.18.1-develop:0b1c7d2' });
    const rows = ncclRows(text).filter((row) => row.size !== '0');
    expect(r.collectives).toHaveLength(rows.length * 2);
    rows.forEach((row, i) => {
      for (const [k, cols, inPlace] of [
        [2 * i, row.out, false],
        [2 * i + 1, row.in, true],
      ] as const) {
        const p = r.collectives[k]!;
        expect([p.sizeBytes, p.timeUs, p.algbwGbps, p.busbwGbps, p.inPlace]).toEqual([
          Number(row.size),
          Number(cols[0]),
          Number(cols[1]),
          Number(cols[2]),
          inPlace,
        ]);
        expect(p.wrong).toBe(cols[3] === 'N/A' ? null : Number(cols[3]));
        // nccl-tests' count is per rank; the protocol's is the buffer's: size / 4 bytes of float.
        expect(p.count).toBe(Number(row.count) * 8);
        expect(p.count * 4).toBe(p.sizeBytes);
      }
    });
    expect(
      r.collectives.every(
        (p) =>
          p.op === 'alltoall' &&
          p.ranks === 8 &&
          p.iters === 20 &&
          // The text shows neither the command line nor the environment: the variant is not known.
          p.variant === 'unknown' &&
          p.transport === null &&
          !p.simulated,
      ),
    ).toBe(true);
    console.log(
      r.collectives
        .map(
          (p) =>
            `alltoall ${p.inPlace ? 'in ' : 'out'} ${p.sizeBytes} B: ${p.timeUs} us, algbw ${p.algbwGbps}, busbw ${p.busbwGbps}`,
        )
        .join('\n'),
    );
    expect(r.unmappedWhy).toEqual([{ why: 'size 0 is not a positive number of bytes', parts: 2 }]);
    expect(r.topology).toMatchObject({
      node: { name: 'mi300x-a', vendor: 'amd', model: 'AMD Instinct MI300X' },
      libraries: [{ name: 'rccl', version: '2.27.7' }],
    });
    expect(r.topology?.gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("rccl-tests all_gather -J JSON, 8 ranks: time, algbw, busbw at the JSON's six decimals", () => {
    const json = JSON.parse(read('rccl-tests', 'mi300x-allgather.json')) as {
      results: {
        size: number;
        out_of_place: { time: number; alg_bw: number; bus_bw: number };
        in_place: { time: number; alg_bw: number; bus_bw: number };
      }[];
    };
    const r = parseNcclTestsJson(json, 'mi300x-allgather.json');
    expectValidRecords(r);
    expect(r.source).toMatchObject({
      tool: 'rccl-tests',
      format: 'json',
      commandLine: './build/all_gather_perf -b 1M -e 256M -f 4 -g 8 -J mi300x-allgather.json',
    });
    expect(r.collectives.map((p) => [p.op, p.sizeBytes, p.inPlace, p.timeUs, p.algbwGbps, p.busbwGbps])).toEqual(
      json.results.flatMap((x) => [
        ['allgather', x.size, false, x.out_of_place.time, x.out_of_place.alg_bw, x.out_of_place.bus_bw],
        ['allgather', x.size, true, x.in_place.time, x.in_place.alg_bw, x.in_place.bus_bw],
      ]),
    );
    expect(r.collectives.every((p) => p.wrong === 0 && p.ranks === 8)).toBe(true);
    // The one note: the variant, from the JSON's args and env.
    expect(r.notes.map((n) => n.code)).toEqual(['import-variant']);
    expect(r.collectives.every((p) => p.variant === 'default')).toBe(true);
  });

  it('a test binary that names no collective, or one the protocol lacks, maps nothing and says so', () => {
    const old = parseNcclTestsText(read('rccl-tests', 'mi300x-old-header.txt'), 'mi300x-old-header.txt');
    expect(old.collectives).toEqual([]);
    expect(old.unmappedWhy).toEqual([
      { why: 'the output does not name the test binary, so not which collective ran', parts: 6 },
    ]);
    const reduce = parseNcclTestsText(
      read('rccl-tests', 'mi300x-alltoall.txt').replaceAll('alltoall_perf', 'all_reduce_perf'),
      'r.txt',
    );
    expect(reduce.collectives).toEqual([]);
    expect(reduce.unmappedWhy[0]?.why).toBe(
      'all_reduce_perf runs no collective the protocol knows (allgather, alltoall)',
    );
  });

  it("#wrong of an element type that is not 32 bits is kept as a note, the point's wrong null", () => {
    const text = read('rccl-tests', 'mi300x-alltoall.txt').replace(
      /^(\s+1024\s+32\s+)float(\s+none\s+-1\s+\S+\s+\S+\s+\S+\s+)0/m,
      '$1 bf16$23',
    );
    const r = parseNcclTestsText(text, 'w.txt');
    const p = r.collectives.find((x) => x.sizeBytes === 1024 && !x.inPlace)!;
    expect(p).toMatchObject({ dtype: 'bf16', wrong: null });
    expect(r.notes.some((n) => n.message.includes('#wrong 3 counts bf16 elements'))).toBe(true);
  });
});

describe('nccl-tests / rccl-tests: the collective variant and the mode', () => {
  const parse = (dir: string, name: string) => {
    const text = read(dir, name);
    return name.endsWith('.json') ? parseNcclTestsJson(JSON.parse(text), name) : parseNcclTestsText(text, name);
  };
  const cases: {
    file: [string, string];
    variant: string;
    mode: string;
    env: Record<string, string>;
    symmetric: boolean;
    basis: RegExp[];
    unknowns: RegExp[];
  }[] = [
    {
      file: ['rccl-tests', 'mi355x-alltoall-gin-dev.json'],
      variant: 'gin-sdma-dev',
      mode: 'rank-per-process',
      env: { NCCL_GIN_ENABLE: '1', NCCL_GIN_TYPE: '7' },
      symmetric: true,
      basis: [
        /^command line: -D 3 -R 2$/,
        /^-D 3 runs rccl-tests' GIN device kernel/,
        /^NCCL_GIN_TYPE=7 \(JSON env\): Anvil SDMA for RCCL 2\.31\.0$/,
      ],
      unknowns: [/NCCL_CONF_FILE or ~\/\.rccl\.conf, \/etc\/rccl\.conf/],
    },
    {
      // The same run's text: Rank lines with 8 pids, but neither -D nor the environment.
      file: ['rccl-tests', 'mi355x-alltoall-gin-dev.txt'],
      variant: 'unknown',
      mode: 'rank-per-process',
      env: {},
      symmetric: false,
      basis: [/^nothing in the file names a variant$/],
      unknowns: [/^the command line is not in a text output/, /no NCCL INFO lines/],
    },
    {
      file: ['rccl-tests', 'mi355x-alltoall-gin-lib.txt'],
      variant: 'gin-sdma-lib',
      mode: 'single-process',
      env: { NCCL_GIN_ENABLE: '1', NCCL_GIN_TYPE: '7', NCCL_GIN_A2A_SDMA_MIN_BYTES: '0' },
      symmetric: false,
      basis: [
        /^NCCL_GIN_TYPE=7 \(NCCL INFO line\): Anvil SDMA for RCCL 2\.31\.0$/,
        /^NCCL_GIN_ENABLE=1 \(NCCL INFO line\)$/,
      ],
      unknowns: [/^the command line is not in a text output/, /-R 2 registered the symmetric windows/],
    },
    {
      file: ['nccl-tests', 'h200x8-allgather-ce.txt'],
      variant: 'ce',
      mode: 'single-process',
      env: { NCCL_CTA_POLICY: '2' },
      symmetric: false,
      basis: [/^NCCL_CTA_POLICY=2 \(NCCL INFO line\): ZERO, copy-engine collectives, for NCCL 2\.28\.9$/],
      unknowns: [/^the command line is not in a text output/],
    },
    {
      // A real output (one H200, 2026-12-04): one rank, so the mode cannot be told.
      file: ['nccl-tests', 'h200x1-allgather-ce-info.txt'],
      variant: 'ce',
      mode: 'unknown',
      env: { NCCL_CTA_POLICY: '2' },
      symmetric: false,
      basis: [/^NCCL_CTA_POLICY=2 \(NCCL INFO line\): ZERO, copy-engine collectives, for NCCL 2\.28\.9$/],
      unknowns: [/^the command line is not in a text output/],
    },
    {
      file: ['nccl-tests', 'alltoall-g1.json'],
      variant: 'default',
      mode: 'unknown',
      env: {},
      symmetric: false,
      basis: [/no -D, -x; the JSON env sets no NCCL_CTA_POLICY or NCCL_GIN_TYPE/],
      unknowns: [/NCCL_CONF_FILE or ~\/\.nccl\.conf, \/etc\/nccl\.conf/],
    },
    {
      file: ['nccl-tests', 'alltoall-g1.txt'],
      variant: 'unknown',
      mode: 'unknown',
      env: {},
      symmetric: false,
      basis: [/^nothing in the file names a variant$/],
      unknowns: [/^the command line is not in a text output/, /no NCCL INFO lines/],
    },
    {
      file: ['rccl-tests', 'mi300x-allgather.json'],
      variant: 'default',
      mode: 'single-process',
      env: {},
      symmetric: false,
      basis: [/no -D, -x/],
      unknowns: [/rccl\.conf/],
    },
    {
      file: ['rccl-tests', 'mi300x-alltoall.txt'],
      variant: 'unknown',
      mode: 'single-process',
      env: {},
      symmetric: false,
      basis: [/^nothing in the file names a variant$/],
      unknowns: [/^the command line is not in a text output/],
    },
    {
      file: ['rccl-tests', 'mi300x-old-header.txt'],
      variant: 'unknown',
      mode: 'single-process',
      env: {},
      symmetric: false,
      basis: [/^nothing in the file names a variant$/],
      unknowns: [/no NCCL INFO lines/],
    },
  ];
  for (const c of cases) {
    it(`${c.file.join('/')}: ${c.variant}, ${c.mode}; what decided it and what the file did not say`, () => {
      const r = parse(...c.file);
      expectValidRecords(r);
      expect(r.variants).toHaveLength(1);
      const v = r.variants[0]!;
      expect(validateRecord(v)).toMatchObject({ kind: 'record' });
      expect(v).toMatchObject({
        type: 'collective-variant',
        variant: c.variant,
        supported: true,
        mode: c.mode,
        env: c.env,
        symmetric: c.symmetric,
        simulated: false,
      });
      expect(v.library.path).toBe('');
      for (const b of c.basis)
        expect(
          v.variantBasis!.some((x) => b.test(x)),
          `${b} in ${v.variantBasis}`,
        ).toBe(true);
      for (const u of c.unknowns)
        expect(
          v.variantUnknowns!.some((x) => u.test(x)),
          `${u} in ${v.variantUnknowns}`,
        ).toBe(true);
      expect(r.collectives.every((p) => p.variant === c.variant)).toBe(true);
      const notes = r.notes.filter((n) => n.code === 'import-variant');
      expect(notes).toHaveLength(1);
      expect(notes[0]!.message).toMatch(new RegExp(`^variant ${c.variant} \\(mode ${c.mode}\\): `));
      expect(notes[0]!.message).not.toMatch(/\n/);
      console.log(`${c.file.join('/')}: ${notes[0]!.message}`);
    });
  }

  /** The gin-sdma-lib text with its INFO lines replaced. */
  const withInfo = (lines: string[]) =>
    read('rccl-tests', 'mi355x-alltoall-gin-lib.txt')
      .split('\n')
      .filter((l) => !l.includes(' NCCL INFO '))
      .flatMap((l) => (l.startsWith('#  Rank  7') ? [l, ...lines] : [l]))
      .join('\n');
  const info = (msg: string) => `mi355x-a:73310:73310 [0] NCCL INFO ${msg}`;

  it('the GIN number is read for the library version (sdmaValues of the catalog): 6 is Anvil SDMA in 2.30.7, rocSHMEM GDA in 2.31', () => {
    const at = (version: string, value: string) =>
      parseNcclTestsText(
        withInfo([info(`NCCL_GIN_TYPE set by environment to ${value}.`)]).replace(
          /rccl-library=23100/,
          `rccl-library=${version}`,
        ),
        'x.txt',
      ).variants[0]!;
    expect(at('23007', '6').variant).toBe('gin-sdma-lib');
    expect(at('23100', '6').variant).toBe('unknown'); // a text output never rules the others out
    expect(at('23100', '6').variantBasis!.join(' ')).toMatch(/not Anvil SDMA for RCCL 2\.31\.0 \(rocSHMEM GDA\)/);
    // 5 in [2.30.4, 2.30.7): Anvil SDMA, a number the catalog marks a guess.
    expect(at('23005', '5').variant).toBe('gin-sdma-lib');
    expect(at('23005', '5').variantBasis!.join(' ')).toMatch(/a guess/);
  });

  it('hostile INFO lines: a 1 MB value, thousands of lines, control characters, conflicting ranks', () => {
    const huge = 'x'.repeat(1 << 20);
    const big = parseNcclTestsText(withInfo([info(`NCCL_GIN_TYPE set by environment to 7${huge}.`)]), 'big.txt');
    expect(big.variants[0]!.variant).toBe('unknown');
    expect(big.variants[0]!.variantUnknowns!.join(' ')).toMatch(
      /1 NCCL INFO line\(s\) longer than 4096 characters were not read/,
    );
    expect(JSON.stringify(big).length).toBeLessThan(200_000);

    const many = Array.from({ length: 20_000 }, (_, i) => info(`NCCL_P2P_LEVEL set by environment to ${i}.`));
    const t0 = performance.now();
    const flood = parseNcclTestsText(withInfo([...many, info('NCCL_GIN_TYPE set by environment to 7.')]), 'many.txt');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(flood.variants[0]!.variant).toBe('gin-sdma-lib');
    expect(Object.keys(flood.variants[0]!.env)).toEqual(['NCCL_GIN_TYPE']);
    expect(flood.notes.length).toBeLessThanOrEqual(201);

    // NCCL prints the number it read: anything else is kept as data and decides nothing.
    const ctl = parseNcclTestsText(
      withInfo([info('NCCL_GIN_TYPE set by environment to 7\u001b[31m\u0007.')]),
      'ctl.txt',
    );
    const v = ctl.variants[0]!;
    expect(v.variant).toBe('unknown');
    expect(v.env.NCCL_GIN_TYPE).toBe('7\u001b[31m\u0007');
    expect(v.variantBasis!.join(' ')).toContain('NCCL_GIN_TYPE="7\\u001b[31m\\u0007"');
    expect(ctl.notes.every((n) => [...n.message].every((ch) => ch.charCodeAt(0) >= 0x20))).toBe(true);
    expect(validateRecord(v)).toMatchObject({ kind: 'record' });

    const two = parseNcclTestsText(
      withInfo([info('NCCL_GIN_TYPE set by environment to 7.'), info('NCCL_GIN_TYPE set by environment to 4.')]),
      'two.txt',
    );
    expect(two.variants[0]!.variant).toBe('unknown');
    expect(two.variants[0]!.variantBasis![0]).toMatch(/NCCL_GIN_TYPE is shown with two values, 7 and 4/);
  });

  /** The gin-dev JSON with its args, env, pids or version changed. */
  interface DevJson {
    args: string[] | string;
    env: string[] | Record<string, string>;
    rccl_version: unknown;
    config: { ngpus: unknown; devices: { pid: unknown }[] };
  }
  const devJson = (edit: (o: DevJson & { args: string[]; env: string[] }) => void) => {
    const o = JSON.parse(read('rccl-tests', 'mi355x-alltoall-gin-dev.json')) as DevJson & {
      args: string[];
      env: string[];
    };
    edit(o);
    return parseNcclTestsJson(o, 'dev.json');
  };

  it('hostile JSON: a 1 MB env value is kept cut; odd args, pids and versions are checked, never trusted', () => {
    const huge = devJson((o) => o.env.push(`NCCL_CTA_POLICY=${'2'.repeat(1 << 20)}`)).variants[0]!;
    expect(huge.env.NCCL_CTA_POLICY!.length).toBeLessThanOrEqual(257);
    expect(huge.variant).toBe('gin-sdma-dev'); // -D 3 decides before the CTA policy
    expect(JSON.stringify(huge).length).toBeLessThan(10_000);

    const notNumber = devJson((o) => (o.args[o.args.indexOf('-D') + 1] = '3e999')).variants[0]!;
    expect(notNumber.variant).toBe('gin-sdma-dev'); // strtol reads "3" and stops, as the tool does
    expect(devJson((o) => (o.args[o.args.indexOf('-D') + 1] = 'x')).variants[0]!.variant).toBe('unknown');
    expect(devJson((o) => (o.args[o.args.indexOf('-D') + 1] = '99999999999999999999')).variants[0]!.variant).toBe(
      'unknown',
    );
    expect(devJson((o) => (o.args[o.args.indexOf('-D') + 1] = '1')).variants[0]!.variantBasis!.join(' ')).toMatch(
      /LSA \(load\/store\) device kernel/,
    );
    // GIN type not Anvil SDMA for the version: the GIN kernel ran, but not over SDMA.
    expect(
      devJson((o) => (o.env = o.env.map((e: string) => (e === 'NCCL_GIN_TYPE=7' ? 'NCCL_GIN_TYPE=6' : e)))).variants[0]!
        .variant,
    ).toBe('unknown');
    // No GIN type shown: the variant stands, the backend is said to be unknown.
    const noType = devJson((o) => (o.env = o.env.filter((e: string) => !e.startsWith('NCCL_GIN_TYPE')))).variants[0]!;
    expect(noType.variant).toBe('gin-sdma-dev');
    expect(noType.variantUnknowns!.join(' ')).toMatch(/NCCL_GIN_TYPE is not shown/);

    for (const pid of [-1, 1.5, 1e300, '7', null, Number.NaN]) {
      const r = devJson((o) => (o.config.devices[3]!.pid = pid)).variants[0]!;
      expect(r.mode).toBe('rank-per-process'); // nthreads x ngpus = 1 with 8 devices still says one GPU per process
    }
    expect(
      devJson((o) => {
        o.config.ngpus = 'x';
        o.config.devices[3]!.pid = 'x';
      }).variants[0]!.mode,
    ).toBe('unknown');
    for (const version of [-1, 1e300, '23100', Number.NaN, 2.5]) {
      const r = devJson((o) => (o.rccl_version = version));
      expect(validateRecord(r.variants[0]!)).toMatchObject({ kind: 'record' });
    }
    // Not even lists: nothing is shown, nothing thrown.
    const bare = devJson((o) => {
      (o as DevJson).args = 'alltoall_perf -D 3';
      (o as DevJson).env = { NCCL_GIN_TYPE: '7' };
    }).variants[0]!;
    expect(bare.variant).toBe('unknown');
    expect(bare.variantUnknowns!.join(' ')).toMatch(/command line is not in a json output/);
  });

  it('NCCL_CTA_POLICY: the environment and -x, as numbers or names, by version', () => {
    const ce = (env: string[], args: string[] = [], code = 22809) =>
      parseNcclTestsJson(
        {
          ...JSON.parse(read('nccl-tests', 'alltoall-g1.json')),
          env,
          nccl_version: code,
          args: ['./all_gather_perf', '-g', '8', ...args],
        },
        'x.json',
      ).variants[0]!.variant;
    expect(ce(['NCCL_CTA_POLICY=2'])).toBe('ce');
    expect(ce([], ['-x', '2'])).toBe('ce');
    expect(ce(['NCCL_CTA_POLICY=0'], ['-x', '2'])).toBe('default'); // the environment overrides -x
    expect(ce(['NCCL_CTA_POLICY=ZERO'], [], 22809)).toBe('default'); // read as the number 0 before 2.29.2
    expect(ce(['NCCL_CTA_POLICY=zero'], [], 22902)).toBe('ce');
    expect(ce(['NCCL_CTA_POLICY=1'])).toBe('default');
    expect(ce([])).toBe('default');
  });
});
