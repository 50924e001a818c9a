/**
 * Record ingest: helper lines validated, folded into a Run and appended to the run file,
 * through the real Session, fed in 64 KiB chunks like a pipe. Reference in the same run:
 * plain JSON.parse of the same lines. Target: >= 200,000 records/s.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { RunStore } from '../src/core/runStore';
import { runSession } from '../src/core/session';
import type { HelperProcess, Target } from '../src/core/target';

const TARGET_RECORDS = 300_000;
const helper = process.argv[2] ?? 'native/build/sdma-probe';

// Real helper output as the record mix: hello, topology, progress, samples (20 iterations each), done.
const lines = execFileSync(helper, ['sweep', '--backend', 'sim', '--iters', '20'], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim().split('\n');
const body = lines.slice(1, -1);
const corpus = [lines[0]!];
while (corpus.length < TARGET_RECORDS) corpus.push(...body);
corpus.push(lines.at(-1)!);
const text = `${corpus.join('\n')}\n`;
const bytes = Buffer.from(text);

class BufferTarget implements Target {
  readonly kind = 'local';
  readonly label = 'bench';
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
      header: { type: 'run', format: 'sdma-lens-run', version: 1, id: 'bench', command: 'sweep', createdAt: new Date().toISOString(), target: { kind: 'local' }, helper: { path: helper, args: [] } },
    });
    const seconds = (performance.now() - t0) / 1000;
    if (run.problems.length > 0 || run.end?.status !== 'ok') throw new Error(`ingest went wrong: ${run.end?.message} ${run.problems[0] ?? ''}`);
    return corpus.length / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
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
  console.log(`ingest: ${corpus.length} records (${mb.toFixed(1)} MB of real helper output), median of 5`);
  console.log(`  validate + fold + persist (Session):  ${Math.round(g).toLocaleString('en-US')} records/s`);
  console.log(`  reference, plain JSON.parse:          ${Math.round(p).toLocaleString('en-US')} records/s`);
  console.log(`  ratio ingest / JSON.parse:            ${(g / p).toFixed(2)}`);
  console.log(`  target >= 200,000 records/s:          ${g >= 200_000 ? 'met' : 'NOT MET'}`);
}

void main();
