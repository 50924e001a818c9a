/**
 * `sdma-probe run`: the records and exit codes of the run mode, with the sim backend running
 * real programs (so no GPU is needed), the trace-line channel fed by a stand-in program,
 * and cancellation ending the program's whole process group.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import type { CopyOp, Dispatch, HelperRecord, Program } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { expectRunOrder, helper, records } from './run';

const isProgram = (r: HelperRecord): r is Program => r.type === 'program';


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
    const r = helper(['run', '--backend', 'sim', '--', '/bin/echo', 'hello', 'run mode']);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectRunOrder(rs);
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
    for (const args of [['run'], ['run', '--backend', 'sim', '--bogus', '1', '--', '/bin/true'], ['run', '--backend', 'cuda', '--sim-dispatches', '2', '--', '/bin/true']]) {
      const r = helper(args);
      expect(r.status).toBe(2);
      const rs = records(r);
      expect(rs[0]).toMatchObject({ type: 'hello', command: 'run' });
      expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'usage' });
    }
  });

  it('--sim-dispatches N: N simulated dispatches, each with a CU-moved copy, labelled sim', () => {
    const r = helper(['run', '--backend', 'sim', '--sim-dispatches', '4', '--', '/bin/true']);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectRunOrder(rs);
    const dispatches = rs.filter((x): x is Dispatch => x.type === 'dispatch');
    const copies = rs.filter((x): x is CopyOp => x.type === 'copy');
    expect(dispatches).toHaveLength(4);
    expect(copies).toHaveLength(4);
    for (const d of dispatches) expect(d.source).toBe('sim');
    for (const c of copies) expect(c).toMatchObject({ source: 'sim', label: 'simulated', mover: 'cu', initiator: 'device' });
    const starts = rs.filter((x): x is Dispatch | CopyOp => x.type === 'dispatch' || x.type === 'copy').map((x) => x.startNs);
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
    const r = helper(['run', '--backend', 'sim', '--', '/bin/sh', '-c', script]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectRunOrder(rs);
    const dispatch = rs.find((x): x is Dispatch => x.type === 'dispatch');
    expect(dispatch).toMatchObject({ name: 'compute', gpu: 0, source: 'device-trace', cusSeen: 3, grid: [0, 0, 0] });
    const copy = rs.find((x): x is CopyOp => x.type === 'copy');
    expect(copy).toMatchObject({ mover: 'cu', initiator: 'device', srcGpu: 0, dstGpu: 1, bytes: 3 * 4096, source: 'device-trace', label: 'a2a' });
    expect(copy!.endNs - copy!.startNs).toBe(3000);
    const codes = rs.filter((x) => x.type === 'warning').map((w) => (w.type === 'warning' ? w.code : ''));
    expect(codes).toEqual(expect.arrayContaining(['device-trace-dropped', 'trace-line-malformed']));
  });

  it('cancel: SIGTERM ends the whole process group, then done cancelled and exit 143', async () => {
    const child = spawn(inject('helperPath'), ['run', '--backend', 'sim', '--', '/bin/sh', '-c', 'sleep 30 & sleep 30'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
