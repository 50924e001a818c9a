/**
 * The run flow's decisions that need no helper binary: forgetting a node's helper that is no
 * longer there, how a start failure and an end are worded, the backend check, and the
 * pre-start step (the node's `info` through the same helper and cancel, the front's choice).
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
import type { HelperProcess, ProcessExit, RunOutputs, SpawnOptions, Target } from '../../src/core/runtime/target';
import type { Topology } from '../../src/core/protocol';
import { SshError } from '../../src/core/ssh/connection';
import { done, header, hello, line, sample } from '../support/records';

/** A node whose shell answers with a script and an exit, and whose files are counted when collected. */
class ScriptedNode implements Target {
  readonly kind = 'ssh';
  readonly label = 'node-1';
  collected: string[][] = [];
  constructor(
    private readonly stdout: string,
    private readonly exit: ProcessExit,
  ) {}
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
  return {
    state,
    helpers: {
      helperFor: async () => ({ path: '/node/cache/sdma-probe', backends, source: 'cached' }),
      forget: () => state.forgotten++,
    },
  };
};

describe('runHelperCommand', () => {
  it('a node whose shell no longer finds the helper (exit 127) makes the provider forget it, and the files are still collected', async () => {
    const node = new ScriptedNode('', { exitCode: 127, signal: null });
    const { state, helpers } = helperOn();
    const result = await runHelperCommand(
      {
        command: 'sweep',
        idTag: 'sim',
        produces: ['timeline.sdmatl'],
        args: (out) => ['sweep', '--timeline-out', out('timeline.sdmatl')],
      },
      { target: node, helpers, store: new RunStore(dir) },
    );
    expect(result.kind).toBe('ended');
    expect(state.forgotten).toBe(1);
    expect(node.collected).toEqual([['timeline.sdmatl']]);
    if (result.kind === 'ended') {
      expect(result.run.header.helper.args).toEqual([
        'sweep',
        '--timeline-out',
        `/node/cache/out/${result.run.header.id}/timeline.sdmatl`,
      ]);
      expect(result.run.header.target).toEqual({ kind: 'ssh', host: 'node-1' });
      expect(result.missing).toEqual(['timeline.sdmatl']);
    }
  });

  it('a run that went well keeps its folder; the helper is not forgotten', async () => {
    const node = new ScriptedNode([hello, sample(), done].map(line).join(''), { exitCode: 0, signal: null });
    const { state, helpers } = helperOn();
    const result = await runHelperCommand(
      { command: 'sweep', idTag: 'sim', args: () => ['sweep'] },
      { target: node, helpers, store: new RunStore(dir) },
    );
    expect(result.kind === 'ended' && result.run.end?.status).toBe('ok');
    expect(state.forgotten).toBe(0);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(node.collected).toEqual([]);
  });

  it('a usage error that measured nothing keeps no run folder', async () => {
    const error = { type: 'error', code: 'usage', message: '--iters needs a number' };
    const node = new ScriptedNode([hello, error, { ...done, status: 'error' }].map(line).join(''), {
      exitCode: 2,
      signal: null,
    });
    const result = await runHelperCommand(
      { command: 'sweep', idTag: 'sim', args: () => ['sweep'] },
      { target: node, helpers: helperOn().helpers, store: new RunStore(dir) },
    );
    expect(result).toEqual({ kind: 'refused', message: '--iters needs a number' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('checkBackend', () => {
  it('passes auto, sim and a backend the helper has; refuses another with a fix that fits how the helper was found', () => {
    const built = { path: '/p/sdma-probe', backends: ['sim', 'cuda'], source: 'built' };
    for (const b of ['auto', 'sim', 'cuda']) expect(() => checkBackend(built, b, 'node-1')).not.toThrow();
    expect(() => checkBackend(built, 'hip', 'node-1')).toThrow(
      'the helper on node-1 has no hip backend (it has: sim, cuda)',
    );
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
    expect({ message: ssh.message, remedy: ssh.remedy, fixedBy: ssh.fixedBy }).toEqual({
      message: 'ssh: connect to host n port 22: Connection refused',
      remedy: 'Check the host.',
      fixedBy: 'target',
    });
    const helper = new HelperError('no helper', 'Set sdmaLens.helperPath.');
    expect({ message: helper.message, remedy: helper.remedy, fixedBy: helper.fixedBy }).toEqual({
      message: 'no helper',
      remedy: 'Set sdmaLens.helperPath.',
      fixedBy: 'helper',
    });
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

const topology: Topology = {
  type: 'topology',
  node: { name: 'n', vendor: 'amd', model: 'AMD Instinct MI350X', simulated: true },
  host: { numaNodes: 1 },
  gpus: [{ index: 0, name: 'gpu0', arch: 'gfx950', cus: 256, memoryBytes: 1, engines: [], numaNode: 0 }],
  links: [],
  libraries: [],
};

/** A local node that answers `info` with its topology (or hangs until cancelled) and any other subcommand with a short sweep. */
class InfoNode implements Target {
  readonly kind = 'local';
  readonly label = 'local';
  spawned: string[][] = [];
  constructor(private readonly info: 'answers' | 'hangs' | 'fails' = 'answers') {}
  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess {
    this.spawned.push([file, ...args]);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const end = (text: string, exit: ProcessExit) => {
      stdout.end(text);
      stderr.end();
      return Promise.resolve(exit);
    };
    if (args[0] !== 'info')
      return {
        pid: 1,
        stdout,
        stderr,
        exit: end([hello, sample(), done].map(line).join(''), { exitCode: 0, signal: null }),
      };
    if (this.info === 'answers')
      return {
        pid: 1,
        stdout,
        stderr,
        exit: end(line({ ...hello, command: 'info' }) + JSON.stringify(topology), { exitCode: 0, signal: null }),
      };
    if (this.info === 'fails')
      return {
        pid: 1,
        stdout,
        stderr,
        exit: end(line({ type: 'error', code: 'backend', message: 'no hip backend' }), { exitCode: 1, signal: null }),
      };
    const exit = new Promise<ProcessExit>((resolve) =>
      options.signal?.addEventListener(
        'abort',
        () => {
          stdout.end();
          stderr.end();
          resolve({ exitCode: null, signal: 'SIGTERM' });
        },
        { once: true },
      ),
    );
    return { pid: 1, stdout, stderr, exit };
  }
  async outputs(): Promise<RunOutputs> {
    throw new Error('this node writes no files');
  }
}

const sweepCmd = (backend = 'sim') => ({
  command: 'sweep' as const,
  idTag: backend,
  backend,
  args: () => ['sweep', '--backend', backend],
});

describe("the pre-start step: the node's info inside the run flow", () => {
  it('asks `info` through the helper found for the command, once, and hands the node to choose and beforeStart', async () => {
    const node = new InfoNode();
    let lookups = 0;
    const helpers = {
      helperFor: async () => (lookups++, { path: '/opt/sdma-probe', backends: ['sim'], source: 'setting' }),
      forget: () => {},
    };
    const seen: string[] = [];
    const result = await runHelperCommand(sweepCmd(), {
      target: node,
      helpers,
      store: new RunStore(dir),
      nodeInfo: { backend: 'sim', simGpus: 1 },
      choose: async ({ node: answer }) => {
        seen.push(answer && 'info' in answer ? `choose: ${answer.info.topology.gpus.length} GPU` : 'choose: none');
        return sweepCmd('auto');
      },
      beforeStart: async ({ node: answer, helper }) => {
        seen.push(
          answer && 'info' in answer ? `check: ${answer.info.topology.node.model} via ${helper.path}` : 'check: none',
        );
      },
    });
    expect(lookups).toBe(1);
    expect(node.spawned).toEqual([
      ['/opt/sdma-probe', 'info', '--backend', 'sim', '--sim-gpus', '1'],
      ['/opt/sdma-probe', 'sweep', '--backend', 'auto'],
    ]);
    expect(seen).toEqual(['choose: 1 GPU', 'check: AMD Instinct MI350X via /opt/sdma-probe']);
    expect(result.kind === 'ended' && result.run.header.helper.args).toEqual(['sweep', '--backend', 'auto']);
  });

  it('an `info` that fails is handed over as an error: the front says what it means', async () => {
    let said: string | undefined;
    const result = await runHelperCommand(sweepCmd(), {
      target: new InfoNode('fails'),
      helpers: helperOn().helpers,
      store: new RunStore(dir),
      nodeInfo: { backend: 'hip' },
      beforeStart: async ({ node }) => {
        said = node && 'error' in node ? node.error.message : 'no error';
      },
    });
    expect(said).toMatch(/could not describe the node \(sdma-probe info --backend hip\): no hip backend/);
    expect(result.kind).toBe('ended');
  });

  it('a cancel while `info` runs ends the command before it starts: no helper run, nothing saved', async () => {
    const node = new InfoNode('hangs');
    const controller = new AbortController();
    const pending = runHelperCommand(sweepCmd(), {
      target: node,
      helpers: helperOn().helpers,
      store: new RunStore(dir),
      signal: controller.signal,
      nodeInfo: { backend: 'sim' },
      beforeStart: async () => {
        throw new Error('not reached');
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(node.spawned.map((a) => a[1])).toEqual(['info']);
    controller.abort();
    expect(await pending).toEqual({ kind: 'not-started' });
    expect(node.spawned).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a choice of nothing (a quick pick dismissed) is declined: nothing run or saved', async () => {
    const node = new InfoNode();
    const result = await runHelperCommand(sweepCmd(), {
      target: node,
      helpers: helperOn().helpers,
      store: new RunStore(dir),
      nodeInfo: { backend: 'sim' },
      choose: async () => undefined,
    });
    expect(result).toEqual({ kind: 'not-started', declined: true });
    expect(node.spawned.map((a) => a[1])).toEqual(['info']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the backend is checked on the command chosen, after the choice', async () => {
    const node = new InfoNode();
    const run = (chosen: string) =>
      runHelperCommand(sweepCmd('hip'), {
        target: node,
        helpers: helperOn(['sim']).helpers,
        store: new RunStore(dir),
        choose: async () => sweepCmd(chosen),
      });
    expect((await run('sim')).kind).toBe('ended');
    await expect(run('cuda')).rejects.toThrow('has no cuda backend');
  });
});
