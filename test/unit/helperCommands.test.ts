/**
 * The sweep's and the matrix's helper commands, built once in the core for every front
 * (src/core/sweep/sweepCommand.ts, src/core/matrix/matrixCommand.ts, the refinement round in
 * src/core/sweep/refine.ts): the arguments, id tag, backend and produced files each front
 * used to assemble by hand, byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { matrixCommand } from '../../src/core/matrix/matrixCommand';
import type { MatrixOptions } from '../../src/core/matrix/matrixOptions';
import { DEFAULT_MATRIX, matrixArgs } from '../../src/core/matrix/matrixOptions';
import type { HelperCommand } from '../../src/core/runtime/runFlow';
import { refineRoundCommand } from '../../src/core/sweep/refine';
import { SWEEP_TIMELINE_FILE, sweepCommand } from '../../src/core/sweep/sweepCommand';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';
import { DEFAULT_SWEEP, sweepArgs } from '../../src/core/sweep/sweepOptions';

const out = (name: string) => `/node/out/${name}`;
const noFiles = () => {
  throw new Error('no file declared');
};

describe('sweepCommand', () => {
  it("a sweep without a timeline: the options' arguments, tagged and checked by its backend, no file", () => {
    const options: SweepOptions = {
      ...DEFAULT_SWEEP,
      backend: 'sim',
      pairs: [{ src: -1, dst: 0 }],
      simGpus: 2,
      simWeak: 'engine=0.5',
    };
    const command: HelperCommand = sweepCommand(options);
    expect({
      command: command.command,
      idTag: command.idTag,
      backend: command.backend,
      produces: command.produces,
    }).toEqual({ command: 'sweep', idTag: 'sim', backend: 'sim', produces: [] });
    expect(command.args(noFiles)).toEqual(sweepArgs(options));
    expect(command.refines).toBeUndefined();
  });

  it('a timeline is a produced file, written where the target says', () => {
    const options: SweepOptions = { ...DEFAULT_SWEEP, timelineSizeBytes: 1 << 20 };
    const command = sweepCommand(options);
    expect(command.produces).toEqual([SWEEP_TIMELINE_FILE]);
    expect(SWEEP_TIMELINE_FILE).toBe('timeline.sdmatl');
    expect(command.args(out)).toEqual(sweepArgs({ ...options, timelineOut: '/node/out/timeline.sdmatl' }));
    expect(command.args(out).slice(-4)).toEqual([
      '--timeline-size',
      '1M',
      '--timeline-out',
      '/node/out/timeline.sdmatl',
    ]);
  });

  it('is checked when built: a bad option is said before the helper is looked for', () => {
    expect(() => sweepCommand({ ...DEFAULT_SWEEP, iters: 0 })).toThrow(/iterations/);
  });

  it("a refinement round: tagged refine-N, naming the sweep it refines, on the probe's backend", () => {
    const probe: SweepOptions = {
      ...DEFAULT_SWEEP,
      backend: 'sim',
      sizes: [65536, 131072],
      cus: [8],
      pairs: [{ src: 0, dst: 1 }],
    };
    const command: HelperCommand = refineRoundCommand(probe, 3, 'grid-id');
    expect({
      idTag: command.idTag,
      backend: command.backend,
      refines: command.refines,
      produces: command.produces,
    }).toEqual({ idTag: 'refine-3', backend: 'sim', refines: 'grid-id', produces: [] });
    expect(command.args(noFiles)).toEqual(sweepArgs(probe));
  });
});

describe('matrixCommand', () => {
  it("the options' arguments, tagged and checked by the backend, made when built", () => {
    const options: MatrixOptions = { ...DEFAULT_MATRIX, backend: 'sim', gpus: [-1, 0, 1], concurrent: true };
    const command: HelperCommand = matrixCommand(options);
    expect({
      command: command.command,
      idTag: command.idTag,
      backend: command.backend,
      produces: command.produces,
    }).toEqual({ command: 'matrix', idTag: 'sim', backend: 'sim', produces: undefined });
    expect(command.args(noFiles)).toEqual(matrixArgs(options));
    expect(() => matrixCommand({ ...DEFAULT_MATRIX, sizeBytes: 0 })).toThrow(/size/);
  });
});
