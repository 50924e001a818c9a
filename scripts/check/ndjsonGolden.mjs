// The helper's output on the simulator, every subcommand with fixed seeds, with what differs
// from run to run masked (process ids, elapsed times, the host name, heartbeats). Used to show
// that a change to the helper's structure leaves what it prints byte for byte the same:
//   node scripts/check/ndjsonGolden.mjs --helper native/build/sdma-probe --out DIR
//   node scripts/check/ndjsonGolden.mjs --compare DIR_BEFORE DIR_AFTER
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';

const root = resolve(import.meta.dirname, '../..');
const fixtures = join(root, 'test/fixtures');

// name -> argv after the helper. Outputs written to files go under {tmp}.
const CASES = {
  version: ['--version'],
  help: ['--help'],
  info: ['info', '--backend', 'sim'],
  'info-4gpus': ['info', '--backend', 'sim', '--sim-gpus', '4'],
  'sweep-default-small': [
    'sweep',
    '--backend',
    'sim',
    '--sizes',
    '4K:1M:x4',
    '--cus',
    '1,64',
    '--iters',
    '3',
    '--seed',
    '7',
  ],
  'sweep-both-modes': ['sweep', '--backend', 'sim', '--sizes', '64K,16M', '--mode', 'both', '--seed', '3'],
  'sweep-pairs': ['sweep', '--backend', 'sim', '--pairs', 'host:0,0:host,0:0,0:1', '--sizes', '1M', '--seed', '2'],
  'sweep-one-gpu': ['sweep', '--backend', 'sim', '--sim-gpus', '1', '--sizes', '1M,64M', '--seed', '5'],
  'sweep-weak': ['sweep', '--backend', 'sim', '--sizes', '1M,256M', '--sim-weak', 'engine=0.6,link=0.5', '--seed', '4'],
  'sweep-timeline-inline': [
    'sweep',
    '--backend',
    'sim',
    '--sizes',
    '1M',
    '--timeline-size',
    '1M',
    '--timeline-iters',
    '2',
    '--seed',
    '1',
  ],
  'sweep-timeline-file': [
    'sweep',
    '--backend',
    'sim',
    '--sizes',
    '1M',
    '--timeline-size',
    '4M',
    '--timeline-out',
    '{tmp}/t.sdmatl',
    '--seed',
    '1',
  ],
  'sweep-engine': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/host',
    '--engine',
    '3',
    '--sizes',
    '1M',
    '--seed',
    '1',
  ],
  'sweep-trace': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'cu/device',
    '--trace',
    '--sizes',
    '1M',
    '--cus',
    '8',
    '--seed',
    '1',
  ],
  'sweep-fault-garbage': ['sweep', '--backend', 'sim', '--sizes', '4K,1M', '--fault', 'garbage-after=2', '--seed', '1'],
  'sweep-fault-exit': ['sweep', '--backend', 'sim', '--sizes', '4K,1M', '--fault', 'exit-after=3', '--seed', '1'],
  'sweep-fault-corrupt': ['sweep', '--backend', 'sim', '--sizes', '4K,1M', '--fault', 'corrupt-after=1', '--seed', '1'],
  'sweep-fault-mislabel': [
    'sweep',
    '--backend',
    'sim',
    '--sizes',
    '4K,1M',
    '--fault',
    'mislabel-after=1',
    '--seed',
    '1',
  ],
  'sweep-runtime-default': [
    'sweep',
    '--backend',
    'sim',
    '--pairs',
    'host:0,0:1,0:0',
    '--paths',
    'engine/host',
    '--sizes',
    '256K,4M',
    '--runtime-default',
    '--seed',
    '1',
  ],
  'matrix-fault-mislabel': [
    'matrix',
    '--backend',
    'sim',
    '--size',
    '1M',
    '--sim-gpus',
    '2',
    '--fault',
    'mislabel-after=0',
  ],
  // The seed's dimensions (docs/PROTOCOL.md, "The seed's dimensions").
  'sweep-waves': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'cu/device,engine/device',
    '--pairs',
    '0:1',
    '--sizes',
    '128K,512K,64M',
    '--cus',
    '1,4',
    '--waves-per-cu',
    '1,16',
    '--iters',
    '5',
    '--seed',
    '1',
  ],
  'sweep-engines': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/host,engine/device',
    '--pairs',
    '0:1,host:0',
    '--engines',
    '1,2,4',
    '--sizes',
    '1M,64M',
    '--iters',
    '5',
    '--seed',
    '1',
  ],
  'sweep-engines-over-channels': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/device',
    '--engines',
    '8,9',
    '--sizes',
    '1M',
    '--iters',
    '3',
    '--seed',
    '1',
  ],
  'sweep-batch': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/host',
    '--engines',
    '1,2',
    '--batch',
    '0,8,64',
    '--sizes',
    '64K,16M',
    '--iters',
    '5',
    '--seed',
    '1',
  ],
  'sweep-batch-only': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/host',
    '--batch',
    '16',
    '--sizes',
    '1M',
    '--seed',
    '1',
  ],
  'sweep-shmem-sdma': [
    'sweep',
    '--backend',
    'sim',
    '--paths',
    'engine/device',
    '--shmem-sdma',
    'forced,library,off',
    '--waves-per-cu',
    '1,4',
    '--sizes',
    '128,4K,1M',
    '--iters',
    '5',
    '--seed',
    '1',
  ],
  'sweep-bad-waves-low': ['sweep', '--backend', 'sim', '--waves-per-cu', '0'],
  'sweep-bad-waves-high': ['sweep', '--backend', 'sim', '--waves-per-cu', '1,65'],
  'sweep-bad-waves-text': ['sweep', '--backend', 'sim', '--waves-per-cu', 'many'],
  'sweep-bad-engines': ['sweep', '--backend', 'sim', '--engines', '65'],
  'sweep-bad-engines-repeat': ['sweep', '--backend', 'sim', '--engines', '2,2'],
  'sweep-bad-batch': ['sweep', '--backend', 'sim', '--batch', '1025'],
  'sweep-bad-shmem-sdma': ['sweep', '--backend', 'sim', '--shmem-sdma', 'on'],
  'sweep-engine-and-engines': ['sweep', '--backend', 'sim', '--engine', '3', '--engines', '1,2'],
  'sweep-series-batch': [
    'sweep',
    '--backend',
    'sim',
    '--series',
    'runtime-default',
    '--paths',
    'engine/host',
    '--batch',
    '8',
  ],
  'sweep-bad-size': ['sweep', '--backend', 'sim', '--sizes', '4K,,1M'],
  'sweep-bad-flag': ['sweep', '--backend', 'sim', '--sizez', '4K'],
  'sweep-bad-backend': ['sweep', '--backend', 'tpu'],
  matrix: ['matrix', '--backend', 'sim', '--size', '64M', '--seed', '9'],
  'matrix-concurrent': [
    'matrix',
    '--backend',
    'sim',
    '--size',
    '64M',
    '--concurrent',
    '--gpus',
    '0,1,2,3',
    '--seed',
    '9',
  ],
  'matrix-host': [
    'matrix',
    '--backend',
    'sim',
    '--sim-gpus',
    '2',
    '--gpus',
    'host,0,1',
    '--size',
    '16M',
    '--seed',
    '9',
  ],
  'matrix-weak': ['matrix', '--backend', 'sim', '--size', '64M', '--sim-weak', 'link=0.5', '--seed', '9'],
  'run-sim': ['run', '--backend', 'sim', '--sim-dispatches', '3', '--', '/bin/true'],
  'run-missing': ['run', '--backend', 'sim', '--', '/nonexistent/program'],
  'run-help': ['run', '--help'],
  'import-rocpd': ['import', '--rocpd', join(fixtures, 'rocpd/fixture.db')],
  'import-csv': ['import', '--rocprofv3-csv', join(fixtures, 'rocprofv3')],
  'import-help': ['import', '--help'],
  'import-missing': ['import', '--rocpd', '/nonexistent.db'],
  collective: ['collective', '--backend', 'sim', '-b', '1K', '-e', '64M', '-f', '4', '--repeats', '3', '--seed', '11'],
  'collective-variants': [
    'collective',
    '--backend',
    'sim',
    '--variants',
    'all',
    '--ops',
    'alltoall',
    '-b',
    '1M',
    '-e',
    '16M',
    '--seed',
    '2',
  ],
  'collective-bad': ['collective', '--backend', 'sim', '--repeats', '0'],
  'collective-help': ['collective', '--help'],
  overlap: ['overlap', '--backend', 'sim', '--seed', '1'],
  'overlap-paths': [
    'overlap',
    '--backend',
    'sim',
    '--paths',
    'cu/device,engine/device',
    '--cus',
    '8,32',
    '--size',
    '16M',
  ],
  'overlap-help': ['overlap', '--help'],
  'no-command': [],
  'unknown-command': ['sweeps'],
};

const MASKED_KEYS = new Set(['pid', 'elapsedMs', 'hostname']);
const args = process.argv.slice(2);

function mask(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  if (value && value.type === 'heartbeat') return null;
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = MASKED_KEYS.has(k) ? '<masked>' : walk(x);
      return out;
    }
    return v;
  };
  return JSON.stringify(walk(value));
}

function capture(helper, outDir) {
  mkdirSync(outDir, { recursive: true });
  for (const [name, argv] of Object.entries(CASES)) {
    const tmp = mkdtempSync(join(tmpdir(), 'sdma-golden-'));
    const real = argv.map((a) => a.replace('{tmp}', tmp));
    const r = spawnSync(helper, real, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120_000 });
    const stdout = r.stdout
      .split('\n')
      .filter((l) => l.length > 0)
      .map(mask)
      .filter((l) => l !== null)
      .map((l) => l.replaceAll(tmp, '{tmp}').replaceAll(root, '{root}'));
    const stderr = r.stderr
      .replaceAll(tmp, '{tmp}')
      .replaceAll(root, '{root}')
      .replace(/\(pid \d+\)/g, '(pid <masked>)');
    let files = '';
    for (const f of readdirSync(tmp).sort()) {
      const bytes = readFileSync(join(tmp, f));
      files += `${f} ${bytes.length} bytes sha256 ${createHash('sha256').update(bytes).digest('hex')}\n`;
    }
    rmSync(tmp, { recursive: true, force: true });
    writeFileSync(
      join(outDir, `${name}.txt`),
      `argv: ${argv.join(' ').replaceAll(root, '{root}')}\nexit: ${r.status} signal: ${r.signal}\n--- stdout\n${stdout.join('\n')}\n--- stderr\n${stderr}--- files\n${files}`,
    );
  }
  console.log(`${Object.keys(CASES).length} cases written to ${outDir}`);
}

function compare(a, b) {
  let differ = 0;
  for (const name of Object.keys(CASES)) {
    const x = readFileSync(join(a, `${name}.txt`), 'utf8');
    const y = readFileSync(join(b, `${name}.txt`), 'utf8');
    if (x !== y) {
      differ += 1;
      console.log(`differs: ${name}`);
    }
  }
  console.log(`${Object.keys(CASES).length - differ} of ${Object.keys(CASES).length} cases byte-identical`);
  process.exit(differ === 0 ? 0 : 1);
}

if (args[0] === '--compare') compare(args[1], args[2]);
else {
  const helper = args[args.indexOf('--helper') + 1];
  const out = args[args.indexOf('--out') + 1];
  if (args.indexOf('--helper') < 0 || args.indexOf('--out') < 0) {
    console.error('usage: ndjsonGolden.mjs --helper PATH --out DIR | --compare DIR_A DIR_B');
    process.exit(2);
  }
  capture(resolve(helper), resolve(out));
}
