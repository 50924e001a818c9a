/**
 * Record ingest: helper lines validated, folded into a Run and appended to the run file,
 * through the real Session, fed in 64 KiB chunks like a pipe. Reference in the same run:
 * plain JSON.parse of the same lines. Target: >= 200,000 records/s. Two mixes of real helper
 * output: a sweep's samples, and a run-mode run of 200,000 device-span records (the default
 * --span-records cap) from a stand-in program writing trace.h's lines.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { RunStore } from '../src/core/runs/runStore';
import { runSession } from '../src/core/runtime/session';
import type { HelperProcess, RunOutputs, Target } from '../src/core/runtime/target';

const TARGET_RECORDS = 300_000;
const helper = process.argv[2] ?? 'native/build/sdma-probe';

/** A sweep's output as the record mix: hello, topology, progress, samples (20 iterations each), done; repeated. */
function sweepCorpus(): string[] {
  const lines = execFileSync(helper, ['sweep', '--backend', 'sim', '--iters', '20'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
    .trim()
    .split('\n');
  const body = lines.slice(1, -1);
  const corpus = [lines[0]!];
  while (corpus.length < TARGET_RECORDS) corpus.push(...body);
  corpus.push(lines.at(-1)!);
  return corpus;
}

/** `sdma-probe run` around a program whose kernels recorded 200,000 spans on 8 GPUs x 256 CUs (none touching, so none merge). */
function spanCorpus(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-spans-'));
  try {
    const file = join(dir, 'dev.ndjson');
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const start = 1e9 + i * 100;
      lines.push(
        JSON.stringify({
          k: 'dev',
          pid: 1,
          gpu: i % 8,
          label: i % 4 ? 'a2a' : 'compute',
          cu: (i >> 3) % 32,
          xcc: (i >> 8) % 8,
          monoStartNs: start,
          monoEndNs: start + 90,
          bytes: i % 4 ? 65536 : 0,
          peer: i % 4 ? (i + 1) % 8 : -1,
          mover: 'cu',
          pull: false,
        }),
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const out = execFileSync(
      helper,
      ['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'cat "$0" > "/dev/fd/${SDMA_LENS_TRACE_FD%%:*}"', file],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    );
    return out.trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let corpus: string[] = [];
let text = '';
let bytes = Buffer.alloc(0);

class BufferTarget implements Target {
  readonly kind = 'local';
  readonly label = 'bench';
  outputs(): Promise<RunOutputs> {
    throw new Error('this target writes no files');
  }
  spawn(): HelperProcess {
    const stdout = new PassThrough({ highWaterMark: 1 << 16 });
    const stderr = new PassThrough();
    const exit = (async () => {
      for (let o = 0; o < bytes.length; o += 1 << 16) {
        if (!stdout.write(bytes.subarray(o, o + (1 << 16)))) await new Promise((r) => stdout.once('drain', r));
      }
      stdout.end();
      stderr.end();
      return { exitCode: 0, signal: null };
    })();
    return { pid: undefined, stdout, stderr, exit };
  }
}

function jsonParseRate(): number {
  const t0 = performance.now();
  let n = 0;
  for (const line of text.split('\n')) {
    if (line) {
      JSON.parse(line);
      n++;
    }
  }
  return n / ((performance.now() - t0) / 1000);
}

async function ingestRate(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-'));
  try {
    const t0 = performance.now();
    const run = await runSession({
      target: new BufferTarget(),
      store: new RunStore(dir),
      header: {
        type: 'run',
        format: 'sdma-lens-run',
        version: 1,
        id: 'bench',
        command: 'sweep',
        createdAt: new Date().toISOString(),
        target: { kind: 'local' },
        helper: { path: helper, args: [] },
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    if (run.problems.length > 0 || run.end?.status !== 'ok')
      throw new Error(`ingest went wrong: ${run.end?.message} ${run.problems[0] ?? ''}`);
    return corpus.length / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(name: string, lines: string[]) {
  corpus = lines;
  text = `${corpus.join('\n')}\n`;
  bytes = Buffer.from(text);
  // Warm up both paths once, then take the median of 5.
  jsonParseRate();
  await ingestRate();
  const parse: number[] = [];
  const ingest: number[] = [];
  for (let i = 0; i < 5; i++) {
    parse.push(jsonParseRate());
    ingest.push(await ingestRate());
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const p = median(parse);
  const g = median(ingest);
  const mb = bytes.length / 1e6;
  console.log(`ingest, ${name}: ${corpus.length} records (${mb.toFixed(1)} MB of real helper output), median of 5`);
  console.log(`  validate + fold + persist (Session):  ${Math.round(g).toLocaleString('en-US')} records/s`);
  console.log(`  reference, plain JSON.parse:          ${Math.round(p).toLocaleString('en-US')} records/s`);
  console.log(`  ratio ingest / JSON.parse:            ${(g / p).toFixed(2)}`);
  console.log(`  target >= 200,000 records/s:          ${g >= 200_000 ? 'met' : 'NOT MET'}`);
}

async function main() {
  await measure('sweep samples', sweepCorpus());
  const spans = spanCorpus();
  const spanRecords = spans.filter((l) => l.includes('"type":"device-span"')).length;
  if (spanRecords !== 200_000) throw new Error(`the run sent ${spanRecords} device-span records, not 200,000`);
  await measure('run mode, 200,000 device-span records', spans);
}

void main();
