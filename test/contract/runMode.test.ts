/**
 * `sdma-probe run`: the records and exit codes of the run mode, with the sim backend running
 * real programs (so no GPU is needed), the trace-line channel fed by a stand-in program,
 * and cancellation ending the program's whole process group.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { CopyOp, Dispatch, HelperRecord, LibraryCalls, Program } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import type { HelperRun } from './run';
import { expectRunOrder, helper, records } from './run';

const isProgram = (r: HelperRecord): r is Program => r.type === 'program';

/** `sdma-probe run --backend sim ARGS...`, which must exit 0 with its records in run mode's order. */
function simRun(args: string[], env?: NodeJS.ProcessEnv): { r: HelperRun; rs: HelperRecord[] } {
  const r = helper(['run', '--backend', 'sim', ...args], 30_000, env);
  expect(r.status).toBe(0);
  const rs = records(r);
  expectRunOrder(rs);
  return { r, rs };
}

/** Processes of a process group that are not zombies, from /proc. */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(entry));
  }
  return live;
}

function programExit(rs: HelperRecord[]): Program {
  const exit = rs.filter(isProgram).find((p) => p.event === 'exit');
  if (!exit) throw new Error('no program exit record');
  return exit;
}

describe('sdma-probe run (sim backend)', () => {
  it('runs the program for real: start and exit records, helper exit 0, simulated hello', () => {
    const { r, rs } = simRun(['--', '/bin/echo', 'hello', 'run mode']);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'run', backend: 'sim', simulated: true });
    const start = rs.filter(isProgram)[0]!;
    expect(start).toMatchObject({ event: 'start', argv: ['/bin/echo', 'hello', 'run mode'] });
    expect(programExit(rs)).toMatchObject({ exitCode: 0, signal: null, pid: start.pid });
    // The program's stdout goes to the helper's stderr, never among the records.
    expect(r.stderr).toContain('hello run mode');
    expect(r.lines.join('\n')).not.toContain('hello run mode');
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it("the program's exit code and signal are reported; the helper still exits 0", () => {
    const seven = helper(['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'echo to-err >&2; exit 7']);
    expect(seven.status).toBe(0);
    expect(programExit(records(seven))).toMatchObject({ exitCode: 7, signal: null });
    expect(seven.stderr).toContain('to-err');
    const killed = helper(['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'kill -KILL $$']);
    expect(killed.status).toBe(0);
    expect(programExit(records(killed))).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it("the user's environment passes through, with the trace channel added", () => {
    const r = helper(['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'echo "home=$HOME fd=$SDMA_LENS_TRACE_FD"']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`home=${process.env.HOME ?? ''} fd=\\d+:\\d+`));
  });

  it('a program that cannot be run: error record, exit 1, no program records', () => {
    const missing = helper(['run', '--backend', 'sim', '--', 'sdma-lens-no-such-program']);
    expect(missing.status).toBe(1);
    const rs = records(missing);
    expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'program-not-found' });
    expect(rs.filter(isProgram)).toHaveLength(0);
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    const notExec = helper(['run', '--backend', 'sim', '--', '/etc/hostname']);
    expect(notExec.status).toBe(1);
    expect(records(notExec).find((x) => x.type === 'error')).toMatchObject({ code: 'program-not-executable' });
  });

  it('usage errors: no program, an unknown flag, --sim-dispatches off the sim backend', () => {
    for (const args of [
      ['run'],
      ['run', '--backend', 'sim', '--bogus', '1', '--', '/bin/true'],
      ['run', '--backend', 'cuda', '--sim-dispatches', '2', '--', '/bin/true'],
    ]) {
      const r = helper(args);
      expect(r.status).toBe(2);
      const rs = records(r);
      expect(rs[0]).toMatchObject({ type: 'hello', command: 'run' });
      expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'usage' });
    }
  });

  it('--sim-dispatches N: N simulated dispatches, each with a CU-moved copy, labelled sim', () => {
    const { rs } = simRun(['--sim-dispatches', '4', '--', '/bin/true']);
    const dispatches = rs.filter((x): x is Dispatch => x.type === 'dispatch');
    const copies = rs.filter((x): x is CopyOp => x.type === 'copy');
    expect(dispatches).toHaveLength(4);
    expect(copies).toHaveLength(4);
    for (const d of dispatches) expect(d.source).toBe('sim');
    for (const c of copies)
      expect(c).toMatchObject({ source: 'sim', label: 'simulated', mover: 'cu', initiator: 'device' });
    const starts = rs
      .filter((x): x is Dispatch | CopyOp => x.type === 'dispatch' || x.type === 'copy')
      .map((x) => x.startNs);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it('device-trace lines on the trace channel become dispatch and copy records', () => {
    // A stand-in for a program built with <sdma_lens/trace.h>: it writes the lines itself.
    const script = [
      'out=/dev/fd/${SDMA_LENS_TRACE_FD%%:*}',
      'for cu in 3 4 5; do',
      '  echo "{\\"k\\":\\"dev\\",\\"pid\\":$$,\\"gpu\\":0,\\"label\\":\\"compute\\",\\"cu\\":$cu,\\"xcc\\":0,\\"monoStartNs\\":1000,\\"monoEndNs\\":5000,\\"bytes\\":0,\\"peer\\":-1,\\"mover\\":\\"cu\\",\\"pull\\":false}" > $out',
      '  echo "{\\"k\\":\\"dev\\",\\"pid\\":$$,\\"gpu\\":0,\\"label\\":\\"a2a\\",\\"cu\\":$cu,\\"xcc\\":0,\\"monoStartNs\\":6000,\\"monoEndNs\\":9000,\\"bytes\\":4096,\\"peer\\":1,\\"mover\\":\\"cu\\",\\"pull\\":false}" > $out',
      'done',
      'echo "{\\"k\\":\\"dev-end\\",\\"pid\\":$$,\\"gpu\\":0,\\"records\\":6,\\"dropped\\":2,\\"alignUncertaintyNs\\":900}" > $out',
      'echo "not json" > $out',
    ].join('\n');
    const { rs } = simRun(['--', '/bin/sh', '-c', script]);
    const dispatch = rs.find((x): x is Dispatch => x.type === 'dispatch');
    expect(dispatch).toMatchObject({ name: 'compute', gpu: 0, source: 'device-trace', cusSeen: 3, grid: [0, 0, 0] });
    const copy = rs.find((x): x is CopyOp => x.type === 'copy');
    expect(copy).toMatchObject({
      mover: 'cu',
      initiator: 'device',
      srcGpu: 0,
      dstGpu: 1,
      bytes: 3 * 4096,
      source: 'device-trace',
      label: 'a2a',
    });
    expect(copy!.endNs - copy!.startNs).toBe(3000);
    const codes = rs.filter((x) => x.type === 'warning').map((w) => (w.type === 'warning' ? w.code : ''));
    expect(codes).toEqual(expect.arrayContaining(['device-trace-dropped', 'trace-line-malformed']));
  });

  it('a launcher that closes inherited descriptors: its workers fall back to the trace file, read after the run and removed', () => {
    // torchrun's and mpirun's workers start without the helper's pipe (trace.h and the CUPTI
    // library then append to SDMA_LENS_TRACE_FILE). The stand-in closes the pipe, then starts its worker.
    const script = [
      'eval "exec ${SDMA_LENS_TRACE_FD%%:*}>&-"',
      'sh -c \'for cu in 7 8; do echo "{\\"k\\":\\"dev\\",\\"pid\\":$$,\\"gpu\\":1,\\"label\\":\\"worker\\",\\"cu\\":$cu,\\"xcc\\":0,\\"monoStartNs\\":1000,\\"monoEndNs\\":5000,\\"bytes\\":0,\\"peer\\":-1,\\"mover\\":\\"cu\\",\\"pull\\":false}" >> "$SDMA_LENS_TRACE_FILE"; done; echo "trace file: $SDMA_LENS_TRACE_FILE" >&2\'',
    ].join('\n');
    const { r, rs } = simRun(['--', '/bin/sh', '-c', script]);
    expect(rs.find((x): x is Dispatch => x.type === 'dispatch')).toMatchObject({
      name: 'worker',
      gpu: 1,
      source: 'device-trace',
      cusSeen: 2,
    });
    const file = /trace file: (\S+)/.exec(r.stderr)?.[1];
    expect(file, r.stderr).toMatch(/^\/tmp\/sdma-lens-trace-\w+\/sdma-lens-trace\.ndjson$/);
    expect(existsSync(dirname(file!))).toBe(false);
  });

  it('cancel: SIGTERM ends the whole process group, then done cancelled and exit 143', async () => {
    const child = spawn(
      inject('helperPath'),
      ['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'sleep 30 & sleep 30'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    const started = new Promise<number>((resolve) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /"type":"program","event":"start".*?"pid":(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
    });
    const pgid = await started;
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(143);
    const rs = out.split('\n').filter(Boolean).map(parseLine);
    for (const r of rs) expect(r.kind).toBe('record');
    const recs = rs.flatMap((r) => (r.kind === 'record' ? [r.record] : []));
    expect(programExit(recs)).toMatchObject({ signal: 'SIGTERM', exitCode: null });
    expect(recs.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
    // Nothing of the group is left running: the background sleep went too (a zombie that
    // the machine's init has not reaped yet is gone all the same).
    expect(liveMembers(pgid)).toEqual([]);
  });
});

describe("sdma-probe run --library-log (a stand-in two-rank program writing the libraries' lines)", () => {
  const ranks = join(__dirname, '../fixtures/runmode/library-log-ranks.sh');
  const isLibraryCalls = (r: HelperRecord): r is LibraryCalls => r.type === 'library-calls';
  /** The env the helper runs with: the test's own, without any NCCL_DEBUG* it may carry. */
  const cleanEnv = (extra: Record<string, string> = {}) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
    for (const k of ['NCCL_DEBUG', 'NCCL_DEBUG_SUBSYS', 'NCCL_DEBUG_FILE']) if (!(k in extra)) delete env[k];
    return env;
  };
  /** The log folder the program was told to write to, from what it printed. */
  const logFolder = (stderr: string) => /NCCL_DEBUG_FILE=(\S*)\/nccl\.%h\.%p\.log/.exec(stderr)?.[1];

  it("RCCL's GIN lines of every rank: one record per path and size range, calls counted once per rank, folder removed", () => {
    const { r, rs } = simRun(['--library-log', '--', ranks, 'rccl'], cleanEnv());
    expect(r.stderr).toContain('NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL,TUNING');
    // The library's lines went to the files, not to the program's output.
    expect(r.stderr).not.toContain('NCCL INFO');
    const folder = logFolder(r.stderr);
    expect(folder).toMatch(/sdma-lens-nccl-/);
    expect(existsSync(folder!)).toBe(false);
    const calls = rs.filter(isLibraryCalls);
    expect(calls.map((c) => [c.transport, c.minBytes, c.maxBytes, c.calls, c.ranks])).toEqual([
      ['lsa', 262144, 262144, 2, 2],
      ['sdma', 524288, 524288, 3, 2],
      ['sdma', 1048576, 1048576, 3, 2],
      ['sdma', 67108864, 67108864, 1, 2],
    ]);
    for (const c of calls) expect(c).toMatchObject({ library: 'rccl', op: 'AllToAll', sizeKind: 'bytesPerPeer' });
    expect(calls[0]!.evidence).toBe('AllToAll GIN: transport=lsa bytesPerPeer=262144 chunks=8 ctas=16 threads=256');
    expect(rs.filter((x) => x.type === 'warning')).toEqual([]);
  });

  it("NCCL's tuner lines come from rank 0 alone: calls are not halved", () => {
    const rs = records(helper(['run', '--backend', 'sim', '--library-log', '--', ranks, 'nccl'], 30_000, cleanEnv()));
    expect(
      rs.filter(isLibraryCalls).map((c) => [c.library, c.op, c.transport, c.sizeKind, c.minBytes, c.calls, c.ranks]),
    ).toEqual([
      ['nccl', 'AllGather', 'ring/simple', 'bytes', 1048576, 2, 1],
      ['nccl', 'AllGather', 'ring/simple', 'bytes', 16777216, 1, 1],
    ]);
  });

  it("the user's own NCCL_DEBUG is left alone: a warning, nothing parsed, their output unchanged", () => {
    const { r, rs } = simRun(['--library-log', '--', ranks, 'rccl'], cleanEnv({ NCCL_DEBUG: 'WARN' }));
    expect(r.stderr).toContain('NCCL_DEBUG=WARN NCCL_DEBUG_SUBSYS= NCCL_DEBUG_FILE=\n');
    expect(rs.filter(isLibraryCalls)).toEqual([]);
    const warning = rs.find((x) => x.type === 'warning');
    expect(warning).toMatchObject({ code: 'library-log-user-set' });
    expect((warning as { message: string }).message).toMatch(/NCCL_DEBUG is already set \(WARN\).*unset NCCL_DEBUG/);
    // Where the program logged its lines (stdout, with no file named), they reach the helper's stderr as they were.
    expect(r.stderr).toContain('NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=67108864');
  });

  it('a NCCL_DEBUG_FILE of the user without NCCL_DEBUG is replaced, with a warning', () => {
    const rs = records(
      helper(
        ['run', '--backend', 'sim', '--library-log', '--', ranks, 'nccl'],
        30_000,
        cleanEnv({ NCCL_DEBUG_FILE: '/dev/null' }),
      ),
    );
    expect(rs.filter(isLibraryCalls)).toHaveLength(2);
    expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'library-log-replaced' });
  });

  it('a program that loads no library: a warning that says so, no records', () => {
    const rs = records(helper(['run', '--backend', 'sim', '--library-log', '--', '/bin/true'], 30_000, cleanEnv()));
    expect(rs.filter(isLibraryCalls)).toEqual([]);
    expect(rs.find((x) => x.type === 'warning')).toMatchObject({
      code: 'library-log-empty',
      message: expect.stringMatching(/no log/),
    });
  });

  it('without --library-log the environment is untouched and no records come', () => {
    const r = helper(['run', '--backend', 'sim', '--', ranks, 'nccl'], 30_000, cleanEnv());
    expect(r.stderr).toContain('NCCL_DEBUG= NCCL_DEBUG_SUBSYS= NCCL_DEBUG_FILE=\n');
    expect(records(r).filter(isLibraryCalls)).toEqual([]);
  });
});
