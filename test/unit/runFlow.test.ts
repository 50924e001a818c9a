/**
 * The run flow's decisions that need no helper binary: forgetting a node's helper that is no
 * longer there, how a start failure and an end are worded, and the backend check.
 * With the real helper: test/contract/runFlow.test.ts; over SSH: test/ssh/remote.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { HelperError } from '../../src/core/runtime/helper';
import { checkBackend, endSentence, runHelperCommand } from '../../src/core/runtime/runFlow';
import type { HelperProcess, ProcessExit, RunOutputs, Target } from '../../src/core/runtime/target';
import { SshError } from '../../src/core/ssh/connection';
import { done, header, hello, line, sample } from '../support/records';

/** A node whose shell answers with a script and an exit, and whose files are counted when collected. */
class ScriptedNode implements Target {
  readonly kind = 'ssh';
  readonly label = 'node-1';
  collected: string[][] = [];
  constructor(private readonly stdout: string, private readonly exit: ProcessExit) {}
  spawn(): HelperProcess {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.end(this.stdout);
    stderr.end();
    return { pid: 1, stdout, stderr, exit: Promise.resolve(this.exit) };
  }
  async outputs(runId: string): Promise<RunOutputs> {
    return {
      path: (name) => `/node/cache/out/${runId}/${name}`,
      collect: async (names) => {
        this.collected.push([...names]);
        return [...names];
      },
    };
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-runflow-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const helperOn = (backends = ['sim']) => {
  const state = { forgotten: 0 };
  return { state, helpers: { helperFor: async () => ({ path: '/node/cache/sdma-probe', backends, source: 'cached' }), forget: () => state.forgotten++ } };
};

describe('runHelperCommand', () => {
  it('a node whose shell no longer finds the helper (exit 127) makes the provider forget it, and the files are still collected', async () => {
    const node = new ScriptedNode('', { exitCode: 127, signal: null });
    const { state, helpers } = helperOn();
    const result = await runHelperCommand({ command: 'sweep', idTag: 'sim', produces: ['timeline.sdmatl'], args: (out) => ['sweep', '--timeline-out', out('timeline.sdmatl')] }, { target: node, helpers, store: new RunStore(dir) });
    expect(result.kind).toBe('ended');
    expect(state.forgotten).toBe(1);
    expect(node.collected).toEqual([['timeline.sdmatl']]);
    if (result.kind === 'ended') {
      expect(result.run.header.helper.args).toEqual(['sweep', '--timeline-out', `/node/cache/out/${result.run.header.id}/timeline.sdmatl`]);
      expect(result.run.header.target).toEqual({ kind: 'ssh', host: 'node-1' });
      expect(result.missing).toEqual(['timeline.sdmatl']);
    }
  });

  it('a run that went well keeps its folder; the helper is not forgotten', async () => {
    const node = new ScriptedNode([hello, sample(), done].map(line).join(''), { exitCode: 0, signal: null });
    const { state, helpers } = helperOn();
    const result = await runHelperCommand({ command: 'sweep', idTag: 'sim', args: () => ['sweep'] }, { target: node, helpers, store: new RunStore(dir) });
    expect(result.kind === 'ended' && result.run.end?.status).toBe('ok');
    expect(state.forgotten).toBe(0);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(node.collected).toEqual([]);
  });

  it('a usage error that measured nothing keeps no run folder', async () => {
    const error = { type: 'error', code: 'usage', message: '--iters needs a number' };
    const node = new ScriptedNode([hello, error, { ...done, status: 'error' }].map(line).join(''), { exitCode: 2, signal: null });
    const result = await runHelperCommand({ command: 'sweep', idTag: 'sim', args: () => ['sweep'] }, { target: node, helpers: helperOn().helpers, store: new RunStore(dir) });
    expect(result).toEqual({ kind: 'refused', message: '--iters needs a number' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('checkBackend', () => {
  it('passes auto, sim and a backend the helper has; refuses another with a fix that fits how the helper was found', () => {
    const built = { path: '/p/sdma-probe', backends: ['sim', 'cuda'], source: 'built' };
    for (const b of ['auto', 'sim', 'cuda']) expect(() => checkBackend(built, b, 'node-1')).not.toThrow();
    expect(() => checkBackend(built, 'hip', 'node-1')).toThrow('the helper on node-1 has no hip backend (it has: sim, cuda)');
    const refused = (() => {
      try {
        checkBackend({ ...built, source: 'setting' }, 'hip', 'local');
      } catch (err) {
        return err as HelperError;
      }
      throw new Error('not refused');
    })();
    expect(refused.remedy).toMatch(/^The helper at \/p\/sdma-probe was built without it/);
    try {
      checkBackend(built, 'hip', 'node-1');
    } catch (err) {
      expect((err as HelperError).remedy).toMatch(/^Install ROCm/);
    }
  });
});

describe('what fixes a failure, and endSentence', () => {
  it('an SSH failure is fixed by the target (the error message offers Select Target), a helper failure by the helper', () => {
    const ssh = new SshError('ssh: connect to host n port 22: Connection refused', 'Check the host.');
    expect(ssh).toBeInstanceOf(HelperError);
    expect({ message: ssh.message, remedy: ssh.remedy, fixedBy: ssh.fixedBy }).toEqual({ message: 'ssh: connect to host n port 22: Connection refused', remedy: 'Check the host.', fixedBy: 'target' });
    const helper = new HelperError('no helper', 'Set sdmaLens.helperPath.');
    expect({ message: helper.message, remedy: helper.remedy, fixedBy: helper.fixedBy }).toEqual({ message: 'no helper', remedy: 'Set sdmaLens.helperPath.', fixedBy: 'helper' });
  });

  it('says nothing for a run that went well, and counts what a cancelled run kept', () => {
    const run = newRun(header());
    expect(endSentence(run, 'the sweep')).toBeUndefined();
    run.end = { type: 'run-end', status: 'ok', message: '', exitCode: 0, signal: null, endedAt: '' };
    expect(endSentence(run, 'the sweep')).toBeUndefined();
    run.end = { ...run.end, status: 'cancelled', message: 'cancelled' };
    run.samples.push(sample());
    expect(endSentence(run, 'the sweep')).toBe('the sweep was cancelled; 1 sample was kept in the run.');
    run.samples.push(sample());
    expect(endSentence(run, 'the sweep')).toBe('the sweep was cancelled; 2 samples were kept in the run.');
    run.end = { ...run.end, status: 'crashed', message: 'the helper was killed by SIGKILL; 2 samples kept.' };
    expect(endSentence(run, 'the sweep')).toBe('the sweep crashed: the helper was killed by SIGKILL; 2 samples kept.');
  });
});
