// node native/fuzz/make-seeds.mjs: writes the committed seed corpora (native/fuzz/corpus/)
// from the real outputs under test/fixtures, in each harness's input layout. Run it again
// when a fixture or a layout changes; the fuzzer's own finds are added with
// `npm run fuzz -- --merge` (files named by their SHA-1), never here.
//
//   trace lines     test/fixtures/runmode/*.ndjson (2x and 1x H200 runs): the helper's records
//                   turned back into the lines the CUPTI library (native/cupti/sdma_lens_cupti.cpp)
//                   and <sdma_lens/trace.h> wrote for them, in those writers' formats
//   NDJSON lines    the trace lines above, the helper's own records (a variant child's lines)
//                   and the rocSHMEM PE records
//   PE records      what rocshmem_pe.hip writes on PE 0's stdout: a passed run, a traced one,
//                   a failed check, an error
//   library log     the NCCL/RCCL line shapes of native/tests/library_log_test.cpp and
//                   test/fixtures/runmode/library-log-ranks.sh
//   rocprofv3 CSV   test/fixtures/rocprofv3/*.csv
// The rocpd databases are made at corpus-build time by scripts/fuzz.mjs instead (from
// test/fixtures/rocpd/make-fixture.sql and native/fuzz/seeds/rocpd/*.sql).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const fixtures = join(root, 'test', 'fixtures');

// Writes (or rewrites) the named seeds; the inputs `npm run fuzz -- --merge` added beside them
// (named by their SHA-1) stay.
function corpus(harness, seeds) {
  const dir = join(here, 'corpus', harness);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(seeds)) writeFileSync(join(dir, name), text);
}

// --- trace lines -------------------------------------------------------------------------
// A run's records are ns since the program's start. The program's start on CLOCK_MONOTONIC
// and CUPTI's clock (ns since the epoch) are chosen plausible: the records keep their times.
const START_MONO = 912345678901n;
const CUPTI_MINUS_MONO = 1764412800000000000n - START_MONO;
const mono = (ns) => START_MONO + BigInt(ns);
const cupti = (ns) => mono(ns) + CUPTI_MINUS_MONO;
const line = (fields) => `{${Object.entries(fields).map(([k, v]) => `"${k}":${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}`).join(',')}}`;

/** The trace lines a run's records came from, and one line of each kind. */
function traceLines(ndjsonPath) {
  const records = readFileSync(ndjsonPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const pid = records.find((r) => r.type === 'program')?.pid ?? 1000;
  const timed = records.filter((r) => r.type === 'dispatch' || r.type === 'copy');
  const first = Math.min(...timed.map((r) => r.startNs));
  const last = Math.max(...timed.map((r) => r.endNs));
  const out = [line({ k: 'clock', pid, when: 'start', cuptiNs: cupti(first - 5000000), monoNs: mono(first - 5000000), uncertaintyNs: 21 })];
  let corr = 1;
  for (const r of timed) {
    if (r.type === 'dispatch' && r.source === 'cupti') {
      out.push(line({ k: 'kernel', pid, gpu: r.gpu, name: r.mangled || r.name, startNs: cupti(r.startNs), endNs: cupti(r.endNs), grid: r.grid, block: r.block, corr: r.correlationId ?? corr++, stream: 7 }));
    } else if (r.type === 'copy' && r.source === 'cupti') {
      out.push(line({ k: 'memcpy', pid, kind: r.label, gpu: Math.max(r.srcGpu, r.dstGpu, 0), src: r.srcGpu, dst: r.dstGpu, bytes: r.bytes, startNs: cupti(r.startNs), endNs: cupti(r.endNs), corr: corr++ }));
    } else if (r.type === 'copy' && r.source === 'device-trace') {
      // Four CUs' spans of the one transfer record the helper made of them.
      const step = Math.floor((r.endNs - r.startNs) / 4);
      for (let cu = 0; cu < 4; cu++) {
        out.push(line({ k: 'dev', pid, gpu: r.srcGpu, label: r.label, cu, xcc: 0, monoStartNs: mono(r.startNs + cu * step), monoEndNs: mono(r.startNs + (cu + 1) * step), bytes: r.bytes / 4, peer: r.dstGpu, mover: r.mover, pull: false }));
      }
    }
  }
  const gpus = new Set(timed.filter((r) => r.type === 'dispatch').map((r) => r.gpu));
  for (const gpu of gpus) out.push(line({ k: 'dev-end', pid, gpu, records: 24, dropped: 0, alignUncertaintyNs: 1200 }));
  out.push(line({ k: 'dev-window', pid, monoStartNs: mono(last + 1000), monoEndNs: mono(last + 400000) }));
  out.push(line({ k: 'clock', pid, when: 'exit', cuptiNs: cupti(last + 500000), monoNs: mono(last + 500000), uncertaintyNs: 19 }));
  out.push(line({ k: 'cupti-end', pid, dropped: 0 }));
  return { out, records };
}

const two = traceLines(join(fixtures, 'runmode', 'runmode-fused-a2a.ndjson'));
const one = traceLines(join(fixtures, 'runmode', 'h200x1', 'runmode-fused-a2a.ndjson'));
const error = line({ k: 'cupti-error', pid: 929, message: 'cuptiActivityEnable CONCURRENT_KERNEL: CUPTI_ERROR_NOT_INITIALIZED' });
const firstOfKind = {};
for (const l of [...two.out, error]) {
  const k = JSON.parse(l).k;
  firstOfKind[k] ??= l;
}

const json = {};
for (const [k, l] of Object.entries(firstOfKind)) json[`line-${k}`] = `${l}`;
// The helper's own records of the same runs: nested objects and arrays of strings the flat
// reader refuses, and flat ones it reads.
for (const r of two.records.filter((x) => ['hello', 'dispatch', 'done', 'program'].includes(x.type)).slice(0, 4)) {
  json[`record-${r.type}`] = JSON.stringify(r);
}
// The rocSHMEM PE records (rocshmem_launcher.hpp lists them), as rocshmem_pe.hip writes them.
const uid = { type: 'uid', uid: 'a5'.repeat(128) };
const pe = {
  'passed': [uid, { type: 'version', version: '3.2.0' }, { type: 'times', ns: [4115.333333333333, 4098.7, 4120] },
    { type: 'ops', ops: 12 }, { type: 'validation', ok: true }],
  'traced': [uid, { type: 'version', version: '3.2.0' }, { type: 'times', ns: [8123.4] }, { type: 'ops', ops: 2 },
    { type: 'trace', startNs: 912345678901.2, issuedNs: 912345679101.7, completeNs: 912345687024.5, cu: 17, xcc: 3 },
    { type: 'validation', ok: true }],
  'check-failed': [uid, { type: 'times', ns: [1000] }, { type: 'ops', ops: 2 },
    { type: 'validation', ok: false, message: '1 wrong byte(s); first at byte 524288 of slot 0: 0x5a, expected 0xa5' }],
  'error': [uid, { type: 'error', code: 'out-of-memory', message: 'rocshmem_malloc of 536870912 bytes failed',
    hint: 'the symmetric heap (ROCSHMEM_HEAP_SIZE, set by sdma-probe) or GPU memory is too small for this size: use smaller --sizes' }],
};
const peSeeds = {};
for (const [name, records] of Object.entries(pe)) peSeeds[name] = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
corpus('fuzz_pe_records', peSeeds);
for (const [name, records] of Object.entries(pe)) json[`pe-${name}`] = JSON.stringify(records.at(-1));
json['pe-uid'] = JSON.stringify(uid);
corpus('fuzz_ndjson_line', json);

const header = `${START_MONO} 63\n`;
corpus('fuzz_trace_collector', {
  'h200x2-fused-a2a': header + two.out.join('\n') + '\n',
  'h200x1-fused-a2a': header + one.out.join('\n') + '\n',
  'one-of-each-kind': header + [...Object.values(firstOfKind)].join('\n') + '\n',
  'capped-at-one': `${START_MONO} 0\n` + one.out.slice(0, 12).join('\n') + '\n',
});

// --- library log ---------------------------------------------------------------------------
const testLines = [...readFileSync(join(root, 'native', 'tests', 'library_log_test.cpp'), 'utf8').matchAll(/"((?:[^"\\]|\\.)*NCCL INFO (?:[^"\\]|\\.)*)"/g)]
  .map((m) => m[1].replaceAll('\\n', '').replaceAll('\\"', '"'))
  .filter((l) => /^(\[|[\w-]+:\d)/.test(l));
const rank = (library, dev, pid) => {
  const at = `node-01:${pid}:${pid} [${dev}] NCCL INFO`;
  if (library === 'rccl') {
    return [`${at} RCCL version : 2.27.7-HEAD:0000000`, `${at} Channel 00/0 : ${dev}[${dev}] -> 1[1] via P2P/IPC`,
      ...[262144, 524288, 1048576].map((b) => (b < 524288 ? `${at} AllToAll GIN: transport=lsa bytesPerPeer=${b} chunks=8 ctas=16 threads=256` : `${at} AllToAll GIN: transport=sdma bytesPerPeer=${b} threads=64`)),
      `${at} comm 0x5581 rank ${dev} nranks 2 - Destroy COMPLETE`];
  }
  return [`${at} NCCL version 2.28.9+cuda12.9`, ...(dev === 0 ? [1048576, 16777216].map((b) => `${at} AllGather: ${b} Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}`) : []),
    `${at} comm 0x5581 rank ${dev} nranks 2 - Destroy COMPLETE`];
};
corpus('fuzz_library_log', {
  'library-log-test-lines': testLines.join('\n') + '\n',
  'rccl-two-ranks': [...rank('rccl', 0, 4101), ...rank('rccl', 1, 4102)].join('\n') + '\n',
  'nccl-two-ranks': [...rank('nccl', 0, 4101), ...rank('nccl', 1, 4102)].join('\n') + '\n',
  // Channel counts and copy-engine lines: the init line, NCCL's symmetric and copy-engine lines,
  // RCCL's CE launch lines, and hostile counts.
  'channels-and-ce': [
    'node-01:4101:4101 [0] NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer',
    'node-01:4101:4101 [0] NCCL INFO AllGather [Symmetric]: 1048576 Bytes -> Kernel AllGather_ST nchannels 8 nthreads 512 nWorks 1',
    'node-01:4101:4101 [0] NCCL INFO AlltoAll [Copy Engine]: 8388608 Bytes -> cudaMemcpy',
    'node-01:4101:4101 [0] NCCL INFO CE: rank 0 -> Batch path without intraBatchSync (hipMemcpyBatchAsync), numOps=8',
    'node-01:4101:4101 [0] NCCL INFO CE: rank 0 -> No-Batch Single-Stream path (cudaMemcpyAsync), numOps=8',
    'node-01:4101:4101 [0] NCCL INFO AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={9..3}',
    'node-01:4101:4101 [0] NCCL INFO AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..99999999999999999999}',
    'node-01:4101:4101 [0] NCCL INFO AllToAll GIN: transport=lsa bytesPerPeer=1 chunks=8 ctas=-4 threads=256',
  ].join('\n') + '\n',
});

// --- rocprofv3 CSV ----------------------------------------------------------------------------
const csv = (name) => readFileSync(join(fixtures, 'rocprofv3', name), 'utf8').replace(/\n$/, '');
// agent_info.csv in rocprofv3's column names (the fixtures hold none): the CPU and the GPU
// agent that ran the fixture's kernels.
const agents = '"Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Name"\n0,0,"CPU",64,0,"AMD EPYC 9654"\n1,1,"GPU",0,1216,"gfx942"\n2,2,"GPU",0,1216,"gfx942"';
const files = (a, k, c) => `${a}\n%%\n${k}\n%%\n${c}\n`;
corpus('fuzz_rocprof_csv', {
  'run-with-agents': '-1000000000 2414192600000000 63\n' + files(agents, csv('kernel_trace.csv'), csv('memory_copy_trace.csv')),
  'import-no-agents': '0 0 63\n' + files('', csv('kernel_trace.csv'), csv('memory_copy_trace.csv')),
  'copies-only': '0 0 63\n' + files(agents, '', csv('memory_copy_trace.csv')),
  'rccl-trace-as-kernels': '0 0 63\n' + files('', csv('rccl_trace.csv'), ''),
});

// --- line splitter ---------------------------------------------------------------------------
// Byte 0: maxLineBytes; bytes 1..4: the chunk sizes' seed; then the text.
const split = (max, seed, text) => Buffer.concat([Buffer.from([max, seed & 255, (seed >> 8) & 255, 7, 1]), Buffer.from(text)]);
corpus('fuzz_line_splitter', {
  'csv-long-lines-cut': split(64, 4242, csv('kernel_trace.csv')),
  'csv-crlf': split(255, 99, csv('memory_copy_trace.csv').replaceAll('\n', '\r\n')),
  'trace-lines': split(200, 3, one.out.slice(0, 6).join('\n')),
});

// --- rocpd rows ---------------------------------------------------------------------------------
// The input is a choice stream (fuzz_rocpd_rows.cpp): a few fixed pseudo-random ones to start from.
const bytes = (n, seed) => {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
};
corpus('fuzz_rocpd_rows', { 'choices-256': bytes(256, 1), 'choices-1k': bytes(1024, 2), 'choices-4k': bytes(4096, 3) });

// --- rocSHMEM PE pair ---------------------------------------------------------------------------
// A PE pair kept across points (rocshmem_launcher.hpp): ready once, then a point's records
// and its done record, and rocSHMEM's own log lines (an SDMA initialisation line, coloured as
// rocSHMEM colours it) where a PE left its stdout in place.
corpus('fuzz_pe_records', {
  'pair-two-points': [uid, { type: 'version', version: '3.4.0', init: 'none' }, { type: 'ready' },
    { type: 'times', ns: [4115.3] }, { type: 'ops', ops: 12 }, { type: 'validation', ok: true }, { type: 'done', point: 1 },
    { type: 'times', ns: [8123.4, 8120] }, { type: 'ops', ops: 24 }, { type: 'validation', ok: true }, { type: 'done', point: 2 }]
    .map((r) => JSON.stringify(r)).join('\n') + '\n',
  'pair-with-log': [JSON.stringify(uid),
    '\u001b[32mI0000h rocSHMEM\u001b[0m SDMA init with threshold=0, channels=1, local_size=2\t\u001b[90msdmaHostInit@sdma_policy.cpp:55\u001b[0m',
    JSON.stringify({ type: 'version', version: '', init: 'wg-init' }), JSON.stringify({ type: 'ready' }),
    JSON.stringify({ type: 'error', code: 'runtime', message: 'hipMemcpy failed' })].join('\n') + '\n',
});

// --- KFD sysfs --------------------------------------------------------------------------------
// The files of /sys/class/kfd/kfd as kfd_process.c and kfd_topology.c write them: a counter, a
// node's properties, a counter's name (first line), a PCI address in the first 8 bytes.
corpus('fuzz_kfd_sysfs', {
  'counter': '123456\n',
  'counter-zero': '0\n',
  'counter-name': 'sdma_51234\n',
  'process-folder': '4242\n',
  'properties-mi300x':
    'cpu_cores_count 0\nsimd_count 1216\nvendor_id 4098\ndevice_id 29857\nlocation_id 49408\n' +
    'domain 0\ndrm_render_minor 128\nhive_id 1234567890123456789\nnum_sdma_engines 2\n',
  'properties-partition': 'location_id 805355776\ndomain 1\n',
});

// --- rank bootstrap ----------------------------------------------------------------------------
// The id file rank 0 writes (rank_bootstrap.cpp's writeBootstrapId: 128 bytes as lower-case
// hex and '\n'), the same digits in upper case without the '\n', and the files a rank must
// refuse: one digit short, a CRLF ending, a second line, a non-hex byte, non-UTF-8.
const idHex = bytes(128, 7).toString('hex');
corpus('fuzz_bootstrap_id', {
  'id-file': `${idHex}\n`,
  'id-upper-case-no-newline': idHex.toUpperCase(),
  'id-one-digit-short': `${idHex.slice(1)}\n`,
  'id-crlf': `${idHex}\r\n`,
  'id-second-line': `${idHex}\n${idHex}\n`,
  'id-not-hex': `${idHex.slice(0, 100)}g${idHex.slice(101)}\n`,
  'id-not-utf8': Buffer.concat([Buffer.from(idHex.slice(0, 254)), Buffer.from([0xc3, 0x28, 0x0a])]),
});
// The environment of a rank as each launcher starts it, as /proc/PID/environ holds it (NAME=VALUE
// entries separated by '\0'; an entry without '=' is the variant): srun's task of test/contract's
// bootstrap test, a batch script's shell (SLURM_PROCID, no step), Open MPI's mpirun, MPICH's
// Hydra, and numbers a launcher never writes.
const environ = (vars, variant = 'default') =>
  [...Object.entries(vars).map(([k, v]) => `${k}=${v}`), 'PATH=/usr/bin:/bin', variant].join('\0');
corpus('fuzz_launcher_env', {
  'srun-task': environ({ SLURM_PROCID: 1, SLURM_NTASKS: 4, SLURM_LOCALID: 1, SLURM_JOB_ID: 123456, SLURM_STEP_ID: 0 }),
  'sbatch-shell-then-mpirun': environ({ SLURM_PROCID: 0, SLURM_NTASKS: 8, SLURM_JOB_ID: 123457,
    OMPI_COMM_WORLD_RANK: 3, OMPI_COMM_WORLD_SIZE: 8, OMPI_COMM_WORLD_LOCAL_RANK: 3, PMIX_NAMESPACE: 'prterun-node-01-41234@1' }, 'gin-sdma-lib'),
  'mpich-hydra': environ({ PMI_RANK: 7, PMI_SIZE: 8, MPI_LOCALRANKID: 7, PMI_KVSNAME: 'kvs_41234_0' }, 'ce'),
  'srun-rank-out-of-range': environ({ SLURM_PROCID: 4, SLURM_NTASKS: 4, SLURM_JOB_ID: 123456, SLURM_STEP_ID: 0 }),
  'ompi-numbers-a-launcher-never-writes': environ({ OMPI_COMM_WORLD_RANK: ' 1', OMPI_COMM_WORLD_SIZE: '2147483648',
    OMPI_COMM_WORLD_LOCAL_RANK: '-1', PMIX_NAMESPACE: 'ns/../../etc' }, '../variant'),
  'pmi-signs-and-long-job': environ({ PMI_RANK: '+0', PMI_SIZE: '-0', MPI_LOCALRANKID: '0x1', PMI_KVSNAME: 'k'.repeat(100) }),
});

console.log(`seeds written under ${join(here, 'corpus')}: ${readdirSync(join(here, 'corpus')).join(', ')}`);
