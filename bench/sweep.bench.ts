/**
 * A full simulated sweep through the CLI: 13 sizes (4 KiB..1 GiB) x 4 paths x CU counts
 * 1..256 in powers of two, 20 iterations, saved to a run file. Reference in the same run:
 * the helper alone writing to /dev/null. Target: under 2 s of wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const sizes = '4K,16K,64K,128K,256K,512K,1M,2M,4M,16M,64M,256M,1G';
const args = [
  '--backend',
  'sim',
  '--sizes',
  sizes,
  '--paths',
  'all',
  '--cus',
  '1,2,4,8,16,32,64,128,256',
  '--iters',
  '20',
];

function wall(command: string, argv: string[], stdout: 'ignore' | number): number {
  const t0 = performance.now();
  const r = spawnSync(command, argv, { stdio: ['ignore', stdout, 'inherit'] });
  if (r.status !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${r.status}`);
  return (performance.now() - t0) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-'));
try {
  const devnull = openSync('/dev/null', 'w');
  const cli: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    bare.push(wall(helper, ['sweep', ...args], devnull));
    cli.push(
      wall(
        process.execPath,
        ['dist/cli.js', 'sweep', ...args, '--json', '--helper', helper, '--runs-dir', dir],
        devnull,
      ),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const c = median(cli);
  const b = median(bare);
  console.log('full simulated sweep: 13 sizes x 4 paths x CU counts 1..256 (9), 20 iterations, median of 5');
  console.log(`  CLI (node start + helper + validate + save + JSON):  ${c.toFixed(3)} s`);
  console.log(`  reference, helper alone to /dev/null:               ${b.toFixed(3)} s`);
  console.log(`  ratio CLI / helper:                                 ${(c / b).toFixed(2)}`);
  console.log(`  target < 2 s:                                       ${c < 2 ? 'met' : 'NOT MET'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
