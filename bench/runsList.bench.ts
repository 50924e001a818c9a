/**
 * The runs listing (src/core/runs/runList.ts) of a runs folder of 10,000 runs: each a real
 * simulator sweep (4 paths, CUs 8 and 64, 10 iterations; the helper's own output, about 57 KB)
 * with its header and its end, as `sdma-lens sweep` leaves it; every 10th left incomplete (no
 * end line), every 100th with a damaged header. Measured in the same run:
 *   - cold: `listRuns` (what `sdma-lens runs` and RunStore.list do: every run file's head and tail);
 *   - warm: a second `list` of a `RunList` with its cache (the Runs view's refresh of an unchanged
 *     folder: a `readdir` and one `lstat` a run), then the same after 100 runs changed;
 *   - the reference: `readdir` of the folder and an `lstat` of every run file, nothing read;
 * each the median of 3, with the ratios to the reference.
 * SDMA_BENCH_RUNS=1000 for a quick run.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_FILE_NAME } from '../src/core/run';
import { RunList, listRuns } from '../src/core/runs/runList';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const N = Number(process.env.SDMA_BENCH_RUNS ?? 10_000);

function simSweep(): string {
  const r = spawnSync(
    helper,
    [
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'cu/host,cu/device,engine/host,engine/device',
      '--cus',
      '8,64',
      '--iters',
      '10',
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) throw new Error(`sdma-probe sweep exited ${r.status}: ${r.stderr}`);
  return r.stdout.trimEnd();
}

function runId(i: number): string {
  return `2026-12-04T00-00-00-000Z-sweep-sim-${String(i).padStart(5, '0')}`;
}

function writeRuns(root: string, body: string): void {
  const end = JSON.stringify({
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-12-04T00:00:01Z',
  });
  for (let i = 0; i < N; i++) {
    const id = runId(i);
    const header = {
      type: 'run',
      format: 'sdma-lens-run',
      version: 1,
      id,
      command: 'sweep',
      createdAt: '2026-12-04T00:00:00Z',
      target: { kind: 'local' },
      helper: { path: 'sdma-probe', args: ['sweep', '--backend', 'sim'] },
    };
    mkdirSync(join(root, id));
    const first = i % 100 === 3 ? '{"type":"run","damaged' : JSON.stringify(header);
    writeFileSync(join(root, id, RUN_FILE_NAME), `${first}\n${body}\n${i % 10 === 1 ? '' : `${end}\n`}`);
  }
}

async function reference(root: string): Promise<number> {
  const t0 = performance.now();
  const names = await readdir(root);
  let files = 0;
  for (let i = 0; i < names.length; i += 32)
    await Promise.all(
      names.slice(i, i + 32).map(async (n) => {
        if ((await lstat(join(root, n, RUN_FILE_NAME))).isFile()) files++;
      }),
    );
  if (files !== N) throw new Error(`${files} run files of ${N}`);
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const body = simSweep();
  const root = mkdtempSync(join(tmpdir(), 'sdma-bench-runs-'));
  try {
    writeRuns(root, body);
    const times = { cold: [] as number[], warm: [] as number[], changed: [] as number[], ref: [] as number[] };
    let listed = 0;
    let statuses = '';
    for (let k = 0; k < 3; k++) {
      times.ref.push(await reference(root));
      let t0 = performance.now();
      const cold = await listRuns(root);
      times.cold.push(performance.now() - t0);
      listed = cold.length;
      const count = new Map<string, number>();
      for (const s of cold) count.set(s.status, (count.get(s.status) ?? 0) + 1);
      if (k === 0) statuses = [...count].map(([s, c]) => `${c} ${s}`).join(', ');
      const list = new RunList(root, { cache: true });
      await list.list();
      t0 = performance.now();
      await list.list();
      times.warm.push(performance.now() - t0);
      if (list.lastRead !== 0) throw new Error(`an unchanged folder re-read ${list.lastRead} runs`);
      // 100 runs grow by a line (a run in progress, or one that ended): only those are read again.
      for (let i = 0; i < 100; i++) appendFileSync(join(root, runId(i * 7 + k), RUN_FILE_NAME), '{"type":"x"}\n');
      t0 = performance.now();
      await list.list();
      times.changed.push(performance.now() - t0);
      if ((list.lastRead as number) !== 100) throw new Error(`100 changed runs, ${list.lastRead} re-read`);
    }
    const ref = median(times.ref);
    const line = (what: string, ms: number) =>
      console.log(`  ${what.padEnd(46)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / ref).toFixed(2)} x the reference`);
    console.log(`runs listing: ${N} sweep runs of ${(body.length / 1024).toFixed(0)} KiB (${statuses}); median of 3`);
    line('reference: readdir + lstat of every run file', ref);
    line(`cold list (listRuns, ${listed} runs listed)`, median(times.cold));
    line('warm refresh, folder unchanged (RunList cache)', median(times.warm));
    line('warm refresh, 100 runs changed', median(times.changed));
    console.log(`  cold per run: ${((median(times.cold) / N) * 1000).toFixed(0)} µs`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
