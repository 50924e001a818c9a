/**
 * A run over SSH against the same run here: the full simulated sweep (13 sizes x 4 paths x
 * CU counts 1..256, 20 iterations) through the Session to a saved run, on this machine and
 * on a loopback sshd "node" (test/ssh/sshd.ts). Three SSH cases: the first run (no
 * connection, no helper on the node: copy the sources and build there), a cold connection
 * with the helper cached, and a warm run (shared connection up, helper cached). Loopback
 * has no network latency, so the figures are the fixed cost SDMA Lens adds; a real node
 * adds its round-trip time a few times per run (probe, start, end).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalTarget } from '../src/core/runtime/localTarget';
import { RunStore, makeRunId } from '../src/core/runs/runStore';
import { runSession } from '../src/core/runtime/session';
import { SshConnection } from '../src/core/ssh/connection';
import { deployHelper } from '../src/core/ssh/deploy';
import { parseDestination } from '../src/core/ssh/destination';
import { SshTarget } from '../src/core/ssh/sshTarget';
import type { Target } from '../src/core/runtime/target';
import { SSHD, startSshd } from '../test/ssh/sshd';

const root = process.cwd();
const localHelper = resolve(process.argv[2] ?? 'native/build/sdma-probe');
const args = [
  'sweep',
  '--backend',
  'sim',
  '--sizes',
  '4K,16K,64K,128K,256K,512K,1M,2M,4M,16M,64M,256M,1G',
  '--paths',
  'all',
  '--cus',
  '1,2,4,8,16,32,64,128,256',
  '--iters',
  '20',
];

async function sweep(target: Target, helperPath: string, store: RunStore): Promise<number> {
  const id = makeRunId('sweep', 'sim');
  const t0 = performance.now();
  const run = await runSession({
    target,
    store,
    header: {
      type: 'run',
      format: 'sdma-lens-run',
      version: 1,
      id,
      command: 'sweep',
      createdAt: new Date().toISOString(),
      target: target.kind === 'ssh' ? { kind: 'ssh', host: target.label } : { kind: 'local' },
      helper: { path: helperPath, args },
    },
  });
  if (run.end?.status !== 'ok') throw new Error(`run on ${target.label}: ${run.end?.status}: ${run.end?.message}`);
  return (performance.now() - t0) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  if (!existsSync(SSHD)) {
    console.log(`skipped: ${SSHD} is missing (Debian: apt-get install openssh-server)`);
    return;
  }
  const sshd = await startSshd();
  const runs = mkdtempSync(join(tmpdir(), 'sdma-bench-ssh-'));
  const store = new RunStore(runs);
  const conn = () =>
    new SshConnection(parseDestination('sdma-node'), {
      extraArgs: ['-F', sshd.configFile],
      controlDir: sshd.controlDir,
    });
  try {
    const local: number[] = [];
    for (let i = 0; i < 5; i++) local.push(await sweep(new LocalTarget(), localHelper, store));

    let t0 = performance.now();
    const first = conn();
    const built = await deployHelper(first, { sourceDir: join(root, 'native') });
    const buildS = (performance.now() - t0) / 1000;
    const firstRunS = buildS + (await sweep(new SshTarget(first), built.path, store));
    await first.close();

    const cold: number[] = [];
    for (let i = 0; i < 3; i++) {
      const c = conn();
      t0 = performance.now();
      const found = await deployHelper(c, { sourceDir: join(root, 'native') });
      cold.push((performance.now() - t0) / 1000 + (await sweep(new SshTarget(c), found.path, store)));
      await c.close();
    }

    const warmConn = conn();
    const known = await deployHelper(warmConn, { sourceDir: join(root, 'native') });
    const probed: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      t0 = performance.now();
      const found = await deployHelper(warmConn, { sourceDir: join(root, 'native') });
      probed.push((performance.now() - t0) / 1000 + (await sweep(new SshTarget(warmConn), found.path, store)));
      // The extension remembers the node's helper for the session: a later run is the run alone.
      warm.push(await sweep(new SshTarget(warmConn), known.path, store));
    }
    await warmConn.close();

    const l = median(local);
    console.log(
      'full simulated sweep over SSH (loopback sshd) vs here: 13 sizes x 4 paths x 9 CU counts, 20 iterations',
    );
    console.log(`  reference, local target (median of 5):                    ${l.toFixed(3)} s`);
    console.log(
      `  first SSH run: connect + copy sources + build on node + run: ${firstRunS.toFixed(3)} s  (build ${buildS.toFixed(1)} s, backends ${built.backends.join(', ')})`,
    );
    console.log(
      `  SSH, new connection, helper cached (median of 3):         ${median(cold).toFixed(3)} s  (+${(median(cold) - l).toFixed(3)} s, x${(median(cold) / l).toFixed(2)})`,
    );
    console.log(
      `  SSH, shared connection, helper probed (median of 5):      ${median(probed).toFixed(3)} s  (+${(median(probed) - l).toFixed(3)} s, x${(median(probed) / l).toFixed(2)})`,
    );
    console.log(
      `  SSH, warm: shared connection, helper known (median of 5):  ${median(warm).toFixed(3)} s  (+${(median(warm) - l).toFixed(3)} s, x${(median(warm) / l).toFixed(2)})`,
    );
    const sshOnly: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = conn();
      await c.exec(['true']);
      t0 = performance.now();
      await c.exec(['true']);
      sshOnly.push((performance.now() - t0) / 1000);
      await c.close();
    }
    console.log(`  reference, one bare \`ssh node true\` on a shared connection: ${median(sshOnly).toFixed(3)} s`);
  } finally {
    sshd.stop();
    rmSync(runs, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
