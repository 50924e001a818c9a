/**
 * The ssh target against a real sshd on loopback: the helper built on the "node" from the
 * sources sent over ssh, a full simulated sweep, cancel (also SIGINT, SIGTERM and a second
 * signal to the CLI), a connection killed mid-run, the node's watchdog and a node that stops
 * answering, timed against the bounds the messages state. After each, ps over ssh shows
 * nothing of ours left on the node.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { recordPointTimeline } from '../../src/core/runtime/pointTimeline';
import { HelperError } from '../../src/core/runtime/helper';
import { runHelperCommand } from '../../src/core/runtime/runFlow';
import { fixedHelper } from '../support/fixedHelper';
import { PATHS } from '../../src/core/protocol';
import { RunStore } from '../../src/core/runs/runStore';
import { readTimelineFile } from '../../src/core/timeline/timelineFile';
import type { Run } from '../../src/core/run';
import { runSession } from '../../src/core/runtime/session';
import type { RemoteHelperInfo } from '../../src/core/ssh/deploy';
import { deployHelper } from '../../src/core/ssh/deploy';
import {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_TIMEOUT_S,
  NODE_STOPS_HELPER_WITHIN_S,
  REMOTE_KILL_GRACE_S,
} from '../../src/core/ssh/remoteScripts';
import { SERVER_ALIVE_COUNT_MAX, SERVER_ALIVE_INTERVAL_S } from '../../src/core/ssh/sshArgs';
import { SshTarget } from '../../src/core/ssh/sshTarget';
import { header } from '../support/records';
import { startSshd } from './sshd';
import type { TestSshd } from './sshd';
import { canRunSshd, cliControlSocket, cliSshProcesses, connectionTo, remoteProcesses, until } from './support';

const repo = resolve(__dirname, '..', '..');
const slow = [
  'sweep',
  '--backend',
  'sim',
  '--sizes',
  '4K,64K,1M,16M',
  '--cus',
  '8,64',
  '--iters',
  '3',
  '--sim-delay-ms',
  '300',
];
const slower = slow.map((a) => (a === '300' ? '1000' : a));
/**
 * docs/REMOTE.md: ssh gives up on a silent connection at the keepalive check that finds
 * ServerAliveCountMax of them unanswered, ServerAliveInterval after the last, and the run ends
 * within a second more.
 */
const SSH_GIVES_UP_S = SERVER_ALIVE_INTERVAL_S * (SERVER_ALIVE_COUNT_MAX + 1);
const RUN_ENDS_WITHIN_S = SSH_GIVES_UP_S + 1;

describe.skipIf(!canRunSshd)('SSH target against a real sshd', () => {
  let sshd: TestSshd;
  let helper: RemoteHelperInfo;
  let runs: string;
  const progress: string[] = [];

  let sources: string;
  /** Run folders of single tests, removed with the rest. */
  const flowDirs: string[] = [];
  const flowStore = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-ssh-flow-'));
    flowDirs.push(dir);
    return new RunStore(dir);
  };

  beforeAll(async () => {
    sshd = await startSshd();
    runs = mkdtempSync(join(tmpdir(), 'sdma-ssh-runs-'));
    // A snapshot of the helper sources: edits to native/ while the tests run must not change the hash under them.
    sources = mkdtempSync(join(tmpdir(), 'sdma-ssh-src-'));
    cpSync(join(repo, 'native'), sources, { recursive: true, filter: (f) => f !== join(repo, 'native', 'build') });
    helper = await deployHelper(connectionTo(sshd), { sourceDir: sources, onProgress: (m) => progress.push(m) });
  });
  afterAll(async () => {
    await connectionTo(sshd).close();
    sshd?.stop();
    if (runs) rmSync(runs, { recursive: true, force: true });
    if (sources) rmSync(sources, { recursive: true, force: true });
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
    for (const dir of flowDirs) rmSync(dir, { recursive: true, force: true });
  });

  function start(id: string, args: string[], signal?: AbortSignal, onRecord?: (run: Run) => void) {
    const target = new SshTarget(connectionTo(sshd));
    const store = new RunStore(runs);
    const run = runSession({
      target,
      store,
      header: { ...header(id, args), target: { kind: 'ssh', host: target.host }, helper: { path: helper.path, args } },
      signal,
      onRecord: (live) => onRecord?.(live),
    });
    return { store, run };
  }

  it('builds the helper on the node into its per-user cache, then finds it there', async () => {
    expect(helper.source).toBe('built');
    expect(helper.path.startsWith(`${sshd.nodeCache}/sdma-lens/helper-`)).toBe(true);
    expect(helper.protocol).toBe(1);
    expect(progress.join('\n')).toMatch(/Copying the helper sources/);
    expect(progress.join('\n')).toMatch(/Building the helper on sdma-node/);
    // Nothing but the build is left in the cache: the sources, build tree and run folder are removed.
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens')).filter((n) => n !== 'run')).toEqual([
      helper.path.split('/').at(-2),
    ]);
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'run'))).toEqual([]);
    const again = await deployHelper(connectionTo(sshd), { sourceDir: sources });
    expect(again).toMatchObject({ source: 'cached', path: helper.path });
  });

  it('cancelling a build stops the compilers on the node and leaves no sources or half build behind', async () => {
    // A changed copy of the sources has another hash, so it is built afresh.
    const copy = mkdtempSync(join(tmpdir(), 'sdma-ssh-src-'));
    try {
      cpSync(sources, copy, { recursive: true });
      writeFileSync(join(copy, 'cancel-marker.txt'), String(Date.now()));
      const controller = new AbortController();
      const building = deployHelper(connectionTo(sshd), {
        sourceDir: copy,
        signal: controller.signal,
        onProgress: (m) => {
          if (/^Compiling/.test(m)) setTimeout(() => controller.abort(), 1500);
        },
      });
      await expect(building).rejects.toThrow(/cancelled/);
      const buildDir = join(sshd.nodeCache, 'sdma-lens', 'build-');
      await until(
        'the build processes on the node to stop',
        async () => !execFileSync('ps', ['-e', '-o', 'args='], { encoding: 'utf8' }).includes(buildDir),
        10_000,
      );
      await until(
        'the build folder to be removed',
        async () => readdirSync(join(sshd.nodeCache, 'sdma-lens')).every((n) => !n.startsWith('build-')),
        10_000,
      );
      expect(readdirSync(join(sshd.nodeCache, 'sdma-lens')).filter((n) => n.startsWith('helper-'))).toEqual([
        helper.path.split('/').at(-2),
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('runs a full simulated sweep over ssh, saved like a local one', async () => {
    const args = ['sweep', '--backend', 'sim', '--paths', 'all', '--cus', '1,8,64,256', '--iters', '5'];
    const { store, run } = start('full', args);
    const r = await run;
    expect(r.end?.status).toBe('ok');
    expect(r.hello?.simulated).toBe(true);
    expect(r.samples.length).toBe(r.done?.samples);
    expect(r.samples.length).toBeGreaterThan(50);
    const saved = await store.open('full');
    expect(saved.header.target).toEqual({ kind: 'ssh', host: 'sdma-node' });
    expect(saved.samples.toArray()).toEqual(r.samples.toArray());
    expect(await remoteProcesses(sshd, helper.path)).toEqual([]);
  });

  it("records another point's timeline on the run's node, copies it into the run folder and clears the node", async () => {
    const saved = await new RunStore(runs).open('full');
    const runDir = join(runs, 'full');
    const file = join(runDir, 'timeline-1M-engine-host-1.sdmatl');
    const recorded = await recordPointTimeline({
      run: saved,
      runDir,
      point: { sizeBytes: 1 << 20, path: 'engine/host', cus: 1 },
      file,
      target: new SshTarget(connectionTo(sshd)),
      helpers: fixedHelper(helper.path),
    });
    expect(recorded).toBe(true);
    const columns = readTimelineFile(new Uint8Array(readFileSync(file)));
    expect(columns.kind.length).toBeGreaterThan(0);
    expect([...columns.path].every((p) => p === PATHS.indexOf('engine/host'))).toBe(true);
    const recordings = await new RunStore(join(runDir, 'timelines')).list();
    expect(recordings).toHaveLength(1);
    expect(recordings[0]!.header?.target).toEqual({ kind: 'ssh', host: 'sdma-node' });
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'out'))).toEqual([]);
  });

  it("a point timeline the node cannot record fails with the helper's reason and leaves nothing on the node or a half file", async () => {
    const saved = await new RunStore(runs).open('full');
    const runDir = join(runs, 'full');
    const file = join(runDir, 'timeline-1M-cu-host-99999.sdmatl');
    // 4096 CUs passes the host's range check; the simulated node has 256, so the helper refuses it.
    await expect(
      recordPointTimeline({
        run: saved,
        runDir,
        point: { sizeBytes: 1 << 20, path: 'cu/host', cus: 4096 },
        file,
        target: new SshTarget(connectionTo(sshd)),
        helpers: fixedHelper(helper.path),
      }),
    ).rejects.toThrow(/could not record the timeline: .*\S/);
    expect(readdirSync(runDir).filter((n) => n.includes('cu-host'))).toEqual([]);
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'out'))).toEqual([]);
  });

  it('the CLI runs a sweep with --target, copies the timeline back and clears it on the node', async () => {
    const out: string[] = [];
    const realOut = process.stdout.write.bind(process.stdout);
    const realErr = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((t: string) => (out.push(t), true)) as typeof process.stdout.write;
    process.stderr.write = ((t: string) => (out.push(t), true)) as typeof process.stderr.write;
    let code: number;
    try {
      code = await main([
        'sweep',
        '--target',
        'sdma-node',
        '--ssh-config',
        sshd.configFile,
        '--helper',
        helper.path,
        '--backend',
        'sim',
        '--sizes',
        '4K,1M',
        '--cus',
        '8',
        '--iters',
        '3',
        '--timeline-size',
        '1M',
        '--json',
        '--runs-dir',
        runs,
      ]);
    } finally {
      process.stdout.write = realOut;
      process.stderr.write = realErr;
    }
    expect(code, out.join('')).toBe(0);
    const result = JSON.parse(out.find((t) => t.startsWith('{')) ?? '{}') as {
      runId: string;
      status: string;
      simulated: boolean;
    };
    expect(result).toMatchObject({ status: 'ok', simulated: true });
    const saved = await new RunStore(runs).open(result.runId);
    expect(saved.header.target).toEqual({ kind: 'ssh', host: 'sdma-node' });
    expect(readdirSync(join(runs, result.runId)).sort()).toEqual(['run.ndjson', 'timeline.sdmatl']);
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'out'))).toEqual([]);
  });

  /** The CLI bundled once, as a program of its own: signals reach it as they reach `sdma-lens` in a shell. */
  let cliBundle: Promise<string> | undefined;
  let cliDir: string | undefined;
  const bundledCli = () =>
    (cliBundle ??= (async () => {
      cliDir = mkdtempSync(join(tmpdir(), 'sdma-ssh-cli-bundle-'));
      const cli = join(cliDir, 'cli.js');
      await build({
        entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
        outfile: cli,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        logLevel: 'silent',
      });
      return cli;
    })());

  /**
   * Runs `sdma-lens sweep --target sdma-node` as its own process and, once a sample is saved and
   * the helper is seen on the node, sends it `signals` (each after the given pause). Then: the
   * CLI exits 130 (cancelled, usage.ts) within 10 s, the run file ends with a `cancelled`
   * run-end after the samples that arrived, ps on the node shows no helper (nor `wrapper`, a
   * script on the node run as the helper), and neither the CLI's ssh processes nor its control
   * socket are left here.
   */
  async function signalCliOverSsh(
    signals: ReadonlyArray<readonly [NodeJS.Signals, number]>,
    wrapper?: string,
  ): Promise<{ stderr: string }> {
    const cli = await bundledCli();
    const work = mkdtempSync(join(tmpdir(), 'sdma-ssh-cli-'));
    try {
      const runsDir = join(work, 'runs');
      const child = spawn(
        process.execPath,
        [
          cli,
          'sweep',
          '--target',
          'sdma-node',
          '--ssh-config',
          sshd.configFile,
          '--helper',
          wrapper ?? helper.path,
          ...slow.slice(1),
          '--runs-dir',
          runsDir,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.on('exit', (code, sig) => r({ code, signal: sig })),
      );
      const onNode = async () => [
        ...(await remoteProcesses(sshd, helper.path)),
        ...(wrapper ? await remoteProcesses(sshd, `/bin/sh ${wrapper}`) : []),
      ];
      const runFile = await until(
        'a sample in the run file',
        async () => {
          const id = existsSync(runsDir)
            ? readdirSync(runsDir, { withFileTypes: true }).find((e) => e.isDirectory())?.name
            : undefined;
          const file = id ? join(runsDir, id, 'run.ndjson') : undefined;
          return file && readFileSync(file, 'utf8').includes('"type":"sample"') ? file : undefined;
        },
        30_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; CLI stderr: ${stderr}`);
      });
      expect((await remoteProcesses(sshd, helper.path)).length).toBeGreaterThan(0);
      if (wrapper) expect((await remoteProcesses(sshd, `/bin/sh ${wrapper}`)).length).toBeGreaterThan(0);
      const socket = cliControlSocket(sshd);
      expect(existsSync(socket), `the CLI's control socket ${socket}`).toBe(true);
      const t0 = performance.now();
      for (const [signal, pauseMs] of signals) {
        await new Promise((r) => setTimeout(r, pauseMs));
        child.kill(signal);
      }
      expect(await exited, stderr).toEqual({ code: 130, signal: null });
      expect(performance.now() - t0).toBeLessThan(10_000);
      const lines = readFileSync(runFile, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; status?: string });
      expect(lines.at(-1)).toMatchObject({ type: 'run-end', status: 'cancelled' });
      expect(lines.filter((l) => l.type === 'sample').length).toBeGreaterThanOrEqual(1);
      await until('no helper left on the node', async () => (await onNode()).length === 0, 5_000).catch(async () => {
        throw new Error(`left on the node: ${(await onNode()).join(' | ')}`);
      });
      // The CLI's shared connection (its ControlMaster, in the default control folder) is closed too.
      await until('no ssh of the CLI left', async () => cliSshProcesses(sshd).length === 0, 5_000).catch(() => {
        throw new Error(`ssh left running: ${cliSshProcesses(sshd).join(' | ')}`);
      });
      expect(existsSync(socket), `the CLI's control socket ${socket}`).toBe(false);
      return { stderr };
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  it('Ctrl+C on `sdma-lens sweep --target` ends the run cancelled, stops the helper on the node and leaves no ssh behind', async () => {
    await signalCliOverSsh([['SIGINT', 0]]);
  });

  it('SIGTERM to `sdma-lens sweep --target` ends the run the same way: cancelled, exit 130, nothing left on the node or here', async () => {
    const { stderr } = await signalCliOverSsh([['SIGTERM', 0]]);
    expect(stderr).toContain('sdma-lens: the run was cancelled');
  });

  it("a second signal over SSH (SIGINT, then SIGTERM 100 ms later) is said, and the cancel still stops the node's helper and the CLI's ssh", async () => {
    // The helper behind a script on the node that, told to stop, takes a second more: the second signal lands mid-cancel.
    const wrapper = join(sshd.dir, 'slow-to-stop.sh');
    writeFileSync(wrapper, `#!/bin/sh\ntrap 'sleep 1' TERM\n'${helper.path}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    const { stderr } = await signalCliOverSsh(
      [
        ['SIGINT', 0],
        ['SIGTERM', 100],
      ],
      wrapper,
    );
    expect(stderr).toContain('SIGTERM again; still stopping the helper');
  });

  it("the run flow checks the node helper's backends before anything starts there", async () => {
    const missing = ['hip', 'cuda'].find((b) => !helper.backends.includes(b));
    if (!missing) throw new Error('the node helper has every backend: nothing to refuse');
    const target = new SshTarget(connectionTo(sshd));
    const store = flowStore();
    const helpers = { helperFor: async () => helper, forget: () => {} };
    const request = {
      command: 'sweep' as const,
      idTag: missing,
      backend: missing,
      produces: ['timeline.sdmatl'],
      args: () => ['sweep', '--backend', missing],
    };
    const error = await runHelperCommand(request, { target, helpers, store }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(HelperError);
    expect((error as HelperError).message).toBe(
      `the helper on sdma-node has no ${missing} backend (it has: ${helper.backends.join(', ')})`,
    );
    expect((error as HelperError).remedy).toMatch(/Install (ROCm|CUDA) .*there; the next run rebuilds the helper/);
    expect(readdirSync(store.root)).toEqual([]);
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'out'))).toEqual([]);
  });

  it('a run that crashes on the node still brings back what it wrote and clears the node', async () => {
    const target = new SshTarget(connectionTo(sshd));
    const store = flowStore();
    let forgotten = 0;
    const helpers = { helperFor: async () => helper, forget: () => forgotten++ };
    const args = (out: (name: string) => string) => [
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '4K,64K,1M',
      '--cus',
      '8',
      '--iters',
      '2',
      '--timeline-size',
      '64K',
      '--timeline-out',
      out('timeline.sdmatl'),
      '--fault',
      'crash-after=1',
    ];
    const result = await runHelperCommand(
      { command: 'sweep', idTag: 'sim', backend: 'sim', produces: ['timeline.sdmatl'], args },
      { target, helpers, store },
    );
    if (result.kind !== 'ended') throw new Error(`the run did not end: ${result.kind}`);
    expect(result.run.end?.status).toBe('crashed');
    expect(result.run.samples.length).toBeGreaterThanOrEqual(1);
    expect(result.run.header.target).toEqual({ kind: 'ssh', host: 'sdma-node' });
    // Whether the timeline was written before the crash decides only `missing`; the node is cleared either way.
    const local = readdirSync(store.dirOf(result.run.header.id)).sort();
    expect(local).toEqual(
      result.missing.includes('timeline.sdmatl') ? ['run.ndjson'] : ['run.ndjson', 'timeline.sdmatl'],
    );
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'out'))).toEqual([]);
    expect(forgotten).toBe(0);
  });

  it('cancel kills the helper on the node and keeps what arrived', async () => {
    const controller = new AbortController();
    let samples = 0;
    const { store, run } = start('cancel', slower, controller.signal, (live) => (samples = live.samples.length));
    // First see the helper on the node with ps (the check the end of the test relies on), then cancel.
    await until('the helper on the node', async () => (await remoteProcesses(sshd, helper.path)).length > 0, 10_000);
    await until('two samples', async () => samples >= 2, 10_000);
    const t0 = performance.now();
    controller.abort();
    const r = await run;
    expect(r.end?.status).toBe('cancelled');
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect((await store.open('cancel')).samples.length).toBeGreaterThanOrEqual(2);
    // The helper answered SIGTERM with a "done" record, so the kill reached its group.
    expect(r.done?.status).toBe('cancelled');
    await until(
      'no helper left on the node',
      async () => (await remoteProcesses(sshd, helper.path)).length === 0,
      5_000,
    );
    expect(readdirSync(join(sshd.nodeCache, 'sdma-lens', 'run'))).toEqual([]);
  });

  it('a connection killed mid-run ends the run within seconds, says so, keeps the partial run, and leaves nothing on the node', async () => {
    let killedAt = 0;
    const { store, run } = start('dropped', slow, undefined, (live) => {
      if (live.samples.length === 2 && !killedAt) {
        killedAt = performance.now();
        expect(sshd.signalSessions('SIGKILL').length).toBeGreaterThan(0);
      }
    });
    const r = await run;
    expect(performance.now() - killedAt).toBeLessThan(10_000);
    expect(['crashed', 'error']).toContain(r.end?.status);
    expect(r.end?.message).toMatch(/connection to sdma-node dropped/);
    expect(r.end?.message).toMatch(/partial run is kept/);
    const saved = await store.open('dropped');
    expect(saved.samples.length).toBeGreaterThanOrEqual(2);
    expect(saved.end?.status).toBe(r.end?.status);
    // Reconnect and look: the helper went away with the connection.
    await until(
      'no helper left on the node',
      async () => (await remoteProcesses(sshd, helper.path)).length === 0,
      10_000,
    );
  });

  // A collective's rank processes on the node: one of them hangs (it ignores SIGTERM), as a
  // rank stuck in the library waiting for a dead peer does.
  const ranks = [
    'collective',
    '--backend',
    'sim',
    '--sim-gpus',
    '4',
    '--variants',
    'default',
    '--rank-fault',
    'hang:1@1',
  ];
  const rankProcesses = async () =>
    (await remoteProcesses(sshd, helper.path)).filter((line) => line.includes('--rank-child'));

  it("cancel stops a collective's rank processes on the node, the hung one too", async () => {
    const controller = new AbortController();
    const { run } = start('ranks-cancel', ranks, controller.signal);
    await until('a rank process on the node', async () => (await rankProcesses()).length > 0, 15_000);
    controller.abort();
    const r = await run;
    expect(r.end?.status).toBe('cancelled');
    await until('no rank process left on the node', async () => (await rankProcesses()).length === 0, 10_000);
    await until('no helper left', async () => (await remoteProcesses(sshd, helper.path)).length === 0, 10_000);
  });

  it('a connection killed under a collective leaves none of its rank processes on the node', async () => {
    const { run } = start('ranks-dropped', ranks);
    await until('a rank process on the node', async () => (await rankProcesses()).length > 0, 15_000);
    expect(sshd.signalSessions('SIGKILL').length).toBeGreaterThan(0);
    const r = await run;
    expect(['crashed', 'error']).toContain(r.end?.status);
    await until('no rank process left on the node', async () => (await rankProcesses()).length === 0, 15_000);
    await until('no helper left', async () => (await remoteProcesses(sshd, helper.path)).length === 0, 10_000);
  });

  it("the node's watchdog: 2 s heartbeats never trip it; without them it kills a program that ignores SIGTERM within the stated bound", async () => {
    const conn = connectionTo(sshd);
    // Heartbeats as the host sends them, for longer than the watchdog's timeout: the program runs to its end.
    const beating = await conn.startWatched(['sleep', String(HEARTBEAT_TIMEOUT_S + 4)], HEARTBEAT_INTERVAL_MS);
    // No heartbeat after the mark the wrapper sets at the start; SIGTERM is ignored, so only the SIGKILL a grace later ends it.
    const silent = await conn.startWatched(['sh', '-c', 'trap "" TERM; sleep 97'], 3_600_000);
    // The wrapper writes run/<token>/pgid just before that mark: its time is the "last heartbeat" the bound counts from.
    const pgid = join(sshd.nodeCache, 'sdma-lens', 'run', silent.token, 'pgid');
    const markedAt = await until(
      'the watched run to start on the node',
      async () => existsSync(pgid) && statSync(pgid).mtimeMs,
      10_000,
      20,
    );
    const s = await silent.exit;
    const silentMs = Math.round(Date.now() - markedAt);
    const b = await beating.exit;
    console.log(
      `watchdog: a program without heartbeats that ignores SIGTERM ended ${silentMs} ms after its start mark (stated: within ${NODE_STOPS_HELPER_WITHIN_S} s of the last heartbeat; SIGKILL not before ${HEARTBEAT_TIMEOUT_S + REMOTE_KILL_GRACE_S} s)`,
    );
    expect(b).toMatchObject({ exitCode: 0 });
    expect(s).toMatchObject({ exitCode: 128 + 9 });
    expect(silentMs).toBeGreaterThanOrEqual((HEARTBEAT_TIMEOUT_S + REMOTE_KILL_GRACE_S) * 1000);
    expect(silentMs).toBeLessThanOrEqual(NODE_STOPS_HELPER_WITHIN_S * 1000);
    expect(await remoteProcesses(sshd, 'sleep 97')).toEqual([]);
  });

  it('a node that stops answering mid-run is detected by ssh keepalives, and its watchdog stops the helper within the time the message states', async () => {
    let stoppedAt = 0;
    let stopped: number[] = [];
    // 1 s a unit: left alone, the sweep would run far past the bound, so only the watchdog can end it in time.
    const { run } = start('stalled', slower, undefined, (live) => {
      if (live.samples.length === 2 && !stoppedAt) {
        stoppedAt = performance.now();
        // A frozen sshd: the TCP connection stays open but nothing moves, like a network partition.
        stopped = sshd.signalSessions('SIGSTOP');
      }
    });
    try {
      // From the freeze on, ps on the node (over a fresh connection) every 250 ms: the end of the first poll that finds no helper.
      const gone = (async () => {
        await until('the freeze', async () => stoppedAt > 0, 60_000);
        await until(
          'the node watchdog to stop the helper',
          async () => (await remoteProcesses(sshd, helper.path)).length === 0,
          (NODE_STOPS_HELPER_WITHIN_S + 10) * 1000,
          250,
        );
        return performance.now() - stoppedAt;
      })();
      const r = await run;
      const detectedMs = performance.now() - stoppedAt;
      const goneMs = await gone;
      console.log(
        `frozen node: the run ended ${detectedMs} ms after the freeze (ssh gives up after ${SSH_GIVES_UP_S} s of silence, the run ends within ${RUN_ENDS_WITHIN_S} s); the helper was gone from the node ${goneMs} ms after it (stated: within ${NODE_STOPS_HELPER_WITHIN_S} s)`,
      );
      expect(r.end?.message).toMatch(/connection to sdma-node dropped/);
      expect(r.end?.message).toContain(
        `the node stops the helper within ${NODE_STOPS_HELPER_WITHIN_S} s of the connection going quiet`,
      );
      // The freeze is the latest moment the connection went quiet (the last heartbeat reached the node before it, the last data reached ssh before it).
      expect(detectedMs).toBeLessThanOrEqual(RUN_ENDS_WITHIN_S * 1000);
      expect(goneMs).toBeLessThanOrEqual(NODE_STOPS_HELPER_WITHIN_S * 1000);
    } finally {
      for (const p of stopped) {
        try {
          process.kill(p, 'SIGKILL');
          process.kill(p, 'SIGCONT');
        } catch {
          // gone
        }
      }
    }
  });
});
