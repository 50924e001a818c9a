/**
 * Start-up of the CLI against a plain `node -e 0`, measured in the same run: `--version`,
 * `--help`, and the smallest honest sweep (`sweep --backend sim --sizes 4K --iters 1`: one
 * size, every path and CU count, the simulated helper, its table and advice, the run saved),
 * each the median of RUNS (>= 20) wall times, interleaved round by round so load beside the
 * benchmark touches every figure alike. The helper alone (`sdma-probe --version`) is shown
 * for scale, and Node starting it and nothing else (the floor of any CLI that runs the helper).
 * The sweep runs with a warm `--version` cache and a warm code cache of its bundle (the first
 * run, also shown, fills both in a temporary $XDG_CACHE_HOME); the same sweep without the code
 * cache (NODE_DISABLE_COMPILE_CACHE=1) is shown beside. Target: the sweep within 1.4x `node -e 0`.
 * The sweep's garbage collections follow (V8's --trace-gc, in caches of their own: the flag
 * changes which code cache V8 accepts): a count that the load beside the benchmark does not move.
 *
 * Every case runs without NODE_EXTRA_CA_CERTS (see `env` below). Where the shell sets it, `node -e 0`
 * and the sweep are also measured with it, as the environment gives it (the frame in which Node
 * reads that bundle at every start, as on a machine that sets it for all its processes), in the
 * same rounds, and their ratio printed beside: the same code, with the same constant added to both.
 *
 * Then the extension's load: how long `require('dist/extension.js')` takes with a stub
 * `vscode` module, the median of RUNS fresh processes.
 *
 * `SDMA_LENS_BENCH_BEFORE=<a dist folder>` (e.g. another checkout's build) adds its figures
 * beside, for a before/after. `SDMA_LENS_BENCH_RUNS=N` changes RUNS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const RUNS = Math.max(5, Number(process.env.SDMA_LENS_BENCH_RUNS) || 20);
const TARGET = 1.4;
const root = process.cwd();
// Absolute: the commands run in a scratch folder.
const helper = resolve(process.argv[2] ?? join(root, 'native', 'build', 'sdma-probe'));
const before = process.env.SDMA_LENS_BENCH_BEFORE ? resolve(process.env.SDMA_LENS_BENCH_BEFORE) : undefined;
const scratch = mkdtempSync(join(tmpdir(), 'sdma-lens-clistart-'));
/**
 * Every case without NODE_EXTRA_CA_CERTS: Node loads that certificate bundle at every start
 * (about 40 ms with Debian's full bundle), which would add the same time to the reference and
 * to the CLI and so flatter every ratio. Printed below when it was set.
 */
const caCerts = process.env.NODE_EXTRA_CA_CERTS;
const inherited = { ...process.env };
delete inherited.NODE_EXTRA_CA_CERTS;
const env = { ...inherited, XDG_CACHE_HOME: join(scratch, 'cache') };

interface Case {
  name: string;
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

function seconds(c: Case): number {
  const t0 = performance.now();
  const r = spawnSync(c.file, c.args, { cwd: scratch, env: c.env ?? env, stdio: ['ignore', 'ignore', 'pipe'] });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${String(r.stderr).slice(0, 400)}`);
  return s;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`.padStart(9);

function cliCases(dist: string, label: string): Case[] {
  const cli = join(dist, 'cli.js');
  // Each build its own caches: the two builds' bundles share names, and each would refuse the other's code cache.
  const ownEnv = label ? { ...env, XDG_CACHE_HOME: join(scratch, 'cache-before') } : env;
  const sweep = ['sweep', '--backend', 'sim', '--sizes', '4K', '--iters', '1', '--helper', helper];
  return [
    { name: `${label}--version`, file: process.execPath, args: [cli, '--version'], env: ownEnv },
    { name: `${label}--help`, file: process.execPath, args: [cli, '--help'], env: ownEnv },
    {
      name: `${label}sweep (sim, 4K, 1 iter)`,
      file: process.execPath,
      args: [cli, ...sweep, '--runs-dir', join(scratch, `runs-${label.length}`)],
      env: ownEnv,
    },
    ...(label
      ? []
      : [
          {
            name: 'sweep, no code cache',
            file: process.execPath,
            args: [cli, ...sweep, '--runs-dir', join(scratch, 'runs-no-cache')],
            env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
          },
        ]),
  ];
}

/** The garbage collections of the sweep of `dist`, warm caches of their own: "N scavenges, M mark-compacts". */
function sweepGcs(dist: string, label: string): string {
  const gcEnv = { ...env, XDG_CACHE_HOME: join(scratch, `cache-gc-${label.length}`) };
  const args = ['--trace-gc', join(dist, 'cli.js'), 'sweep', '--backend', 'sim', '--sizes', '4K', '--iters', '1'];
  const run = () => {
    const r = spawnSync(process.execPath, [...args, '--helper', helper, '--runs-dir', join(scratch, 'runs-gc')], {
      cwd: scratch,
      env: gcEnv,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`the sweep with --trace-gc exited ${r.status}: ${r.stderr.slice(0, 400)}`);
    return r.stdout;
  };
  run(); // fills the caches
  const out = run();
  const count = (kind: string) => out.split('\n').filter((l) => l.includes(`: ${kind} `)).length;
  return `${count('Scavenge')} scavenges, ${count('Mark-Compact')} mark-compacts`;
}

/** A child that stubs `vscode` and prints how long requiring the extension's bundle took (ms). */
function extensionLoad(dist: string): Case {
  const script = `
const Module = require('node:module');
const stub = new Proxy(function () {}, {
  get: (t, k) => (k === 'then' || k === Symbol.toPrimitive ? undefined : k === 'prototype' ? {} : stub),
  getPrototypeOf: () => stub, apply: () => stub, construct: () => ({}),
});
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? stub : load.call(this, request, ...rest); };
const t0 = performance.now();
require(${JSON.stringify(join(dist, 'extension.js'))});
process.stdout.write(String(performance.now() - t0));`;
  return { name: 'extension', file: process.execPath, args: ['-e', script] };
}

function extensionMs(c: Case): number {
  const r = spawnSync(c.file, c.args, { encoding: 'utf8' });
  const v = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(v)) throw new Error(`the extension did not load: ${r.stderr.slice(0, 400)}`);
  return v / 1000;
}

function main() {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const cases: Case[] = [
    { name: 'node -e 0 (reference)', file: process.execPath, args: ['-e', '0'] },
    ...cliCases(join(root, 'dist'), ''),
    { name: 'sdma-probe --version', file: helper, args: ['--version'] },
    {
      // The least a Node program that runs the helper can take: start, load child_process, spawn, wait.
      name: 'node spawning sdma-probe (floor)',
      file: process.execPath,
      args: ['-e', `require('node:child_process').spawn(${JSON.stringify(helper)}, ['--version'], { stdio: 'pipe' })`],
    },
    ...(before ? cliCases(before, 'before: ') : []),
  ];
  // The frame with the certificate bundle loaded at start, where the shell sets one.
  const withCerts: Case[] = caCerts
    ? [
        { name: 'node -e 0, with the certificates', file: process.execPath, args: ['-e', '0'], env: process.env },
        {
          ...cases.find((c) => c.name.startsWith('sweep'))!,
          name: 'sweep, with the certificates',
          env: { ...process.env, XDG_CACHE_HOME: env.XDG_CACHE_HOME },
        },
      ]
    : [];
  cases.push(...withCerts);
  const sweepCase = cases.find((c) => c.name.startsWith('sweep'))!;
  const cold = seconds(sweepCase);
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (const c of cases) seconds(c); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const c of cases) times.get(c.name)!.push(seconds(c));
  const ref = median(times.get(cases[0]!.name)!);
  console.log(`CLI start-up, median of ${RUNS} runs each, interleaved (wall time of the whole process)`);
  if (caCerts) console.log(`  (every case without NODE_EXTRA_CA_CERTS=${caCerts}, which this shell sets)`);
  for (const c of cases) {
    const m = median(times.get(c.name)!);
    // The cases with the certificates beside the `node -e 0` with them.
    const r = withCerts.includes(c) ? median(times.get(withCerts[0]!.name)!) : ref;
    console.log(`  ${c.name.padEnd(34)} ${ms(m)}   ratio to node -e 0: ${(m / r).toFixed(2)}`);
  }
  const sweep = median(times.get(sweepCase.name)!);
  console.log(`  sweep, first run (cold --version cache): ${ms(cold).trim()}`);
  console.log(
    `  sweep / node -e 0: ${(sweep / ref).toFixed(2)} (target <= ${TARGET}: ${sweep / ref <= TARGET ? 'met' : 'NOT MET'})`,
  );
  if (caCerts) {
    const [n0, sw] = withCerts.map((c) => median(times.get(c.name)!));
    console.log(
      `  with NODE_EXTRA_CA_CERTS as the shell sets it: sweep ${ms(sw!).trim()} / node -e 0 ${ms(n0!).trim()} = ${(sw! / n0!).toFixed(2)}`,
    );
  } else console.log('  NODE_EXTRA_CA_CERTS is not set here: no figures with the certificates loaded');
  console.log(
    `  sweep's garbage collections: ${sweepGcs(join(root, 'dist'), '')}${before ? ` (before: ${sweepGcs(before, 'before: ')})` : ''}`,
  );

  const loads = [extensionLoad(join(root, 'dist')), ...(before ? [extensionLoad(before)] : [])];
  const loadTimes = loads.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) loads.forEach((c, j) => loadTimes[j]!.push(extensionMs(c)));
  console.log(`extension load, require('dist/extension.js') with a stub vscode, median of ${RUNS} processes`);
  console.log(`  this build:                        ${ms(median(loadTimes[0]!))}`);
  if (before) {
    const b = median(loadTimes[1]!);
    console.log(`  before (${before}): ${ms(b)}   ratio this / before: ${(median(loadTimes[0]!) / b).toFixed(2)}`);
  }
  rmSync(scratch, { recursive: true, force: true });
}

main();
