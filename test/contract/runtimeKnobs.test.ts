/**
 * hello.runtimeKnobs from the real helper (docs/PROTOCOL.md, docs/MEASUREMENT.md "Engine copies
 * are SDMA at every size"): the commands that measure engine copies set ROC_P2P_SDMA_SIZE and
 * GPU_FORCE_BLIT_COPY_SIZE to 0 before the backend opens and name them, with what the
 * environment held before; `run` and `collective` leave the environment alone and name none.
 * Every line is validated against src/core/protocol.ts (records()).
 */
import { describe, expect, it } from 'vitest';
import type { Hello } from '../../src/core/protocol';
import { helper, records } from './run';

/** The test's environment without either knob, plus `extra`. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['ROC_P2P_SDMA_SIZE', 'GPU_FORCE_BLIT_COPY_SIZE']) if (!(name in extra)) delete out[name];
  return out;
}

function helloOf(
  args: string[],
  extra: Record<string, string> = {},
): { hello: Hello; status: number | null; stderr: string } {
  const r = helper(args, 60_000, env(extra));
  const rs = records(r);
  expect(rs[0]?.type).toBe('hello');
  expect(rs.at(-1)?.type).toBe('done');
  return { hello: rs[0] as Hello, status: r.status, stderr: r.stderr };
}

const both = (previous: { p2p: string | null; blit: string | null }) => [
  { name: 'ROC_P2P_SDMA_SIZE', value: '0', previous: previous.p2p, setBy: 'helper' },
  { name: 'GPU_FORCE_BLIT_COPY_SIZE', value: '0', previous: previous.blit, setBy: 'helper' },
];

describe('hello.runtimeKnobs from the helper', () => {
  it('sweep names both knobs at 0, previous null where the environment had none', () => {
    const { hello, status } = helloOf([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '4K,2M',
      '--paths',
      'engine/host',
      '--iters',
      '2',
    ]);
    expect(status).toBe(0);
    expect(hello).toMatchObject({ command: 'sweep', backend: 'sim', simulated: true });
    expect(hello.runtimeKnobs).toEqual(both({ p2p: null, blit: null }));
  });

  it("a value the user's environment had is overridden and kept as previous", () => {
    const { hello } = helloOf(
      ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'engine/host', '--iters', '2'],
      {
        ROC_P2P_SDMA_SIZE: '4096',
      },
    );
    expect(hello.runtimeKnobs).toEqual(both({ p2p: '4096', blit: null }));
    const again = helloOf(['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'engine/host', '--iters', '2'], {
      ROC_P2P_SDMA_SIZE: '0',
      GPU_FORCE_BLIT_COPY_SIZE: '16',
    });
    expect(again.hello.runtimeKnobs).toEqual(both({ p2p: '0', blit: '16' }));
  });

  it('the point timeline of a sweep runs under the same hello', () => {
    const { hello, status } = helloOf([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '64K',
      '--cus',
      '8',
      '--iters',
      '2',
      '--timeline-size',
      '64K',
    ]);
    expect(status).toBe(0);
    expect(hello.runtimeKnobs).toEqual(both({ p2p: null, blit: null }));
  });

  it('matrix and overlap name them too, auto falling back to the simulator as well', () => {
    expect(
      helloOf(['matrix', '--backend', 'sim', '--sim-gpus', '2', '--size', '4K', '--iters', '2']).hello.runtimeKnobs,
    ).toEqual(both({ p2p: null, blit: null }));
    expect(
      helloOf(['overlap', '--backend', 'sim', '--phase-ms', '50', '--size', '1M', '--compute', 'fma']).hello
        .runtimeKnobs,
    ).toEqual(both({ p2p: null, blit: null }));
    const auto = helloOf(['sweep', '--sizes', '4K', '--paths', 'engine/host', '--iters', '2', '--sim-gpus', '2']).hello;
    // On a machine without GPUs auto is the simulator, which names them; a GPU node names them on AMD only.
    if (auto.backend !== 'cuda') expect(auto.runtimeKnobs).toEqual(both({ p2p: null, blit: null }));
    else expect(auto.runtimeKnobs).toBeUndefined();
  });

  it('run names none, and the profiled program sees the environment the user gave', () => {
    const { hello, status, stderr } = helloOf(
      [
        'run',
        '--backend',
        'sim',
        '--',
        '/bin/sh',
        '-c',
        'echo "p2p=${ROC_P2P_SDMA_SIZE-unset} blit=${GPU_FORCE_BLIT_COPY_SIZE-unset}"',
      ],
      { ROC_P2P_SDMA_SIZE: '4096' },
    );
    expect(status).toBe(0);
    expect(hello.command).toBe('run');
    expect(hello).not.toHaveProperty('runtimeKnobs');
    expect(stderr).toContain('p2p=4096 blit=unset');
  });

  it('collective, info, a cuda request and arguments that do not parse name none', () => {
    expect(
      helloOf(['collective', '--backend', 'sim', '-b', '1K', '-e', '2K', '-n', '2', '-w', '1']).hello,
    ).not.toHaveProperty('runtimeKnobs');
    expect(helloOf(['info', '--backend', 'sim']).hello).not.toHaveProperty('runtimeKnobs');
    const cuda = helloOf(['sweep', '--backend', 'cuda', '--sizes', '4K']).hello;
    expect(cuda.backend).toBe('cuda');
    expect(cuda).not.toHaveProperty('runtimeKnobs');
    expect(helloOf(['sweep', '--backend', 'sim', '--no-such-flag']).hello).not.toHaveProperty('runtimeKnobs');
  });
});
