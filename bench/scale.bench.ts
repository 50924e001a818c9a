/**
 * Advice and comparison on a sweep of a million points (test/support/bigRun.ts: two GPU
 * pairs, four paths, CUs 8 and 64, 5 iterations a point, about 300 MB of run.ndjson), end to
 * end: `sdma-lens advise` and `sdma-lens compare` (dist/cli.js), each its own process under a
 * 2 GB address-space limit (`prlimit --as`), wall time and peak RSS (the child's own
 * process.resourceUsage().maxRSS, written at exit by a preload). References measured in the
 * same run on the same file: `wc -l`, and a Node process that reads the file a megabyte at a
 * time and JSON.parses every line (the floor of reading a run), with the ratios to it. Compare
 * refuses runs over MAX_COMPARED_POINTS, so it is measured both on the million-point runs (the
 * time to its refusal) and on two runs of that cap. Median of 3.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MAX_COMPARED_POINTS } from '../src/core/compare/compare';
import { saveBigSweep } from '../test/support/bigRun';

const POINTS = 1_000_000;
const ADDRESS_SPACE = 2 * 1024 ** 3;
const cli = resolve('dist/cli.js');

interface Measured {
  ms: number;
  /** Peak RSS in MB; undefined for a program that is not Node. */
  rssMb?: number;
  status: number | null;
  stdoutBytes: number;
  stderr: string;
}

/** Writes the preload that records a Node process's peak RSS (KB) into $SDMA_BENCH_RSS at exit. */
function rssPreload(dir: string): string {
  const file = join(dir, 'max-rss.cjs');
  writeFileSync(
    file,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.SDMA_BENCH_RSS, String(process.resourceUsage().maxRSS)));\n",
  );
  return file;
}

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

function measure(dir: string, command: string, args: string[], node: boolean): Measured {
  const rssFile = join(dir, 'rss');
  writeFileSync(rssFile, '');
  const limited = hasPrlimit ? ['prlimit', `--as=${ADDRESS_SPACE}`, command, ...args] : [command, ...args];
  const t0 = performance.now();
  const r = spawnSync(limited[0]!, limited.slice(1), {
    env: { ...process.env, SDMA_BENCH_RSS: rssFile },
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  const ms = performance.now() - t0;
  const kb = Number(readFileSync(rssFile, 'utf8'));
  return {
    ms,
    ...(node && kb > 0 ? { rssMb: kb / 1024 } : {}),
    status: r.status,
    stdoutBytes: r.stdout.length,
    stderr: r.stderr.toString('utf8'),
  };
}

function median3(f: () => Measured): Measured {
  const runs = [f(), f(), f()].sort((a, b) => a.ms - b.ms);
  return runs[1]!;
}

/** Reads `file` a megabyte at a time and JSON.parses each line, as a run reader must at least. */
const REFERENCE = `
const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'r');
const buf = Buffer.alloc(1 << 20);
let rest = '';
let lines = 0;
for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) {
  const parts = (rest + buf.toString('utf8', 0, n)).split('\\n');
  rest = parts.pop();
  for (const l of parts) if (l && JSON.parse(l) !== null) lines++;
}
if (rest) JSON.parse(rest), lines++;
process.stdout.write(String(lines));
`;

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-scale-'));
  try {
    const runs = join(dir, 'runs');
    const t0 = performance.now();
    const a = saveBigSweep(runs, { id: 'a', points: POINTS, seed: 1 });
    saveBigSweep(runs, { id: 'b', points: POINTS, seed: 2, scale: 1.02 });
    saveBigSweep(runs, { id: 'cap-a', points: MAX_COMPARED_POINTS, seed: 1 });
    saveBigSweep(runs, { id: 'cap-b', points: MAX_COMPARED_POINTS, seed: 2, scale: 1.02 });
    const genMs = performance.now() - t0;
    const preload = rssPreload(dir);
    const node = (args: string[]) => measure(dir, process.execPath, ['-r', preload, ...args], true);

    const wc = median3(() => measure(dir, 'wc', ['-l', a.file], false));
    const parse = median3(() => node(['-e', REFERENCE, a.file]));
    const advise = median3(() => node([cli, 'advise', 'a', '--runs-dir', runs]));
    const compareBig = median3(() => node([cli, 'compare', 'a', 'b', '--runs-dir', runs]));
    const compareCap = median3(() => node([cli, 'compare', 'cap-a', 'cap-b', '--runs-dir', runs]));
    const compareCapJson = median3(() => node([cli, 'compare', 'cap-a', 'cap-b', '--runs-dir', runs, '--json']));
    if (advise.status !== 0) throw new Error(`advise exited ${advise.status}: ${advise.stderr}`);
    if (compareCap.status !== 0 || compareCapJson.status !== 0)
      throw new Error(
        `compare at the cap exited ${compareCap.status}/${compareCapJson.status}: ${compareCap.stderr}${compareCapJson.stderr}`,
      );

    const s = (m: Measured) => `${(m.ms / 1000).toFixed(2)} s`;
    const rss = (m: Measured) => (m.rssMb !== undefined ? `, peak RSS ${m.rssMb.toFixed(0)} MB` : '');
    const ratio = (m: Measured) => (m.ms / parse.ms).toFixed(2);
    const said = (m: Measured) => (m.status === 0 ? 'exit 0' : `exit ${m.status}: ${m.stderr.trim().split('\n')[0]}`);
    console.log(
      `scale: a sweep of ${a.points.toLocaleString('en-US')} points (${a.sizes.toLocaleString('en-US')} sizes, ${(a.bytes / 1e6).toFixed(0)} MB of run.ndjson), written in ${(genMs / 1000).toFixed(1)} s; each command ${hasPrlimit ? 'under prlimit --as=2 GiB' : 'without an address-space limit (no prlimit)'}; median of 3`,
    );
    console.log(`  reference, wc -l:                             ${s(wc)}`);
    console.log(`  reference, Node read + JSON.parse every line: ${s(parse)}${rss(parse)}`);
    console.log(
      `  sdma-lens advise:                             ${s(advise)}${rss(advise)}, ${said(advise)}; ratio to JSON.parse ${ratio(advise)}`,
    );
    console.log(
      `  sdma-lens compare (two such runs):            ${s(compareBig)}${rss(compareBig)}, ${said(compareBig)}; ratio to JSON.parse ${ratio(compareBig)}`,
    );
    console.log(
      `  sdma-lens compare, two runs of ${MAX_COMPARED_POINTS.toLocaleString('en-US')} points:  ${s(compareCap)}${rss(compareCap)}, ${(compareCap.stdoutBytes / 1e6).toFixed(1)} MB of table`,
    );
    console.log(
      `  the same with --json:                         ${s(compareCapJson)}${rss(compareCapJson)}, ${(compareCapJson.stdoutBytes / 1e6).toFixed(1)} MB of JSON`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
