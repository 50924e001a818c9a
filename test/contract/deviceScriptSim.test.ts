/**
 * bench/device/run-h200xN.sh in simulator mode against the real helper: every stage runs on the
 * simulated node, the summary says SIMULATED first, each stage carries its status, every step
 * gets the three multicast settings, and a failing step is logged as failed while the later
 * steps and stages still run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const STAGES = ['collectives', 'device-api', 'paths', 'matrix', 'overlap'];
const MULTICAST_OFF = { NCCL_NVLS_ENABLE: '0', NVSHMEM_DISABLE_NVLS: '1', TORCH_SYMM_MEM_DISABLE_MULTICAST: '1' };

interface Step {
  stage?: string;
  step: string;
  status: string;
  detail: string;
}
interface Figure {
  what: string;
  value: number | null;
  note: string | null;
  references: { name: string; value: number; ratio: number | null }[];
}
interface Stage {
  status: string;
  reason: string | null;
  steps: Step[];
  figures: Figure[];
  notes: string[];
  weakPairs?: Record<string, unknown[]>;
}
interface Summary {
  simulated: boolean;
  label: string;
  gpus: number;
  env: Record<string, string>;
  multicastOff: boolean;
  stages: Record<string, Stage>;
  skipped: Step[];
  failed: Step[];
}

interface ScriptRun {
  status: number | null;
  stderr: string;
  out: string;
  summary: Summary;
  summaryMd: string;
  log: string;
  files: string[];
}

const dirs: string[] = [];

/** Runs the script with the simulator and these settings; 60 s is the whole budget on 2 cores. */
function runScript(env: Record<string, string>): ScriptRun {
  const out = mkdtempSync(join(tmpdir(), 'sdma-xN-'));
  dirs.push(out);
  const root = inject('repoRoot');
  const r = spawnSync('bash', [join(root, 'bench', 'device', 'run-h200xN.sh')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, SIM: '1', PROBE: inject('helperPath'), OUT: out, ...env },
  });
  const read = (name: string) => {
    try {
      return readFileSync(join(out, name), 'utf8');
    } catch {
      return '';
    }
  };
  const json = read('summary.json');
  return {
    status: r.status,
    stderr: r.stderr,
    out,
    summary: (json ? JSON.parse(json) : {}) as Summary,
    summaryMd: read('summary.md'),
    log: read('log.txt'),
    files: readdirSync(out).sort(),
  };
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('run-h200xN.sh on the simulated 8-GPU node, every stage', () => {
  let run: ScriptRun;
  beforeAll(() => {
    run = runScript({ STAGES: 'all' });
  }, 90_000);

  it('exits 0 and leaves the summary, the log, the machine facts and the raw files, nothing else', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.files).toEqual(['log.txt', 'machine.txt', 'raw.tar.gz', 'summary.json', 'summary.md']);
  });

  it('says SIMULATED on the first line of summary.md and in summary.json', () => {
    expect(run.summaryMd.split('\n')[0]).toMatch(/^SIMULATED: .*8-GPU node/);
    expect(run.summary).toMatchObject({ simulated: true, label: 'SIMULATED', gpus: 8 });
    expect(readFileSync(join(run.out, 'machine.txt'), 'utf8')).toContain('mode: SIMULATED');
  });

  it('lists every stage with its status: run, or skipped with the reason', () => {
    expect(Object.keys(run.summary.stages)).toEqual(STAGES);
    for (const s of ['collectives', 'paths', 'matrix', 'overlap']) {
      expect(run.summary.stages[s]).toMatchObject({ status: 'ran', reason: null });
      expect(run.summary.stages[s]!.figures.length).toBeGreaterThan(0);
    }
    const deviceApi = run.summary.stages['device-api']!;
    expect(deviceApi.status).toBe('skipped');
    expect(deviceApi.steps.find((s) => s.step === 'helper-device-api')).toMatchObject({
      status: 'skipped',
      detail: expect.stringMatching(/^not available in this build: .*--variants: default, ce/),
    });
    expect(deviceApi.figures).toEqual([]);
  });

  it('records torch and the peers as skipped (not present), never silently dropped', () => {
    const skipped = Object.fromEntries(run.summary.skipped.map((s) => [`${s.stage}/${s.step}`, s.detail]));
    for (const step of ['collectives/torch', 'device-api/nccl-tests', 'paths/nvbandwidth', 'paths/transferbench']) {
      expect(skipped[step]).toMatch(/^not present: simulator mode/);
    }
    expect(run.summary.failed).toEqual([]);
    expect(run.summaryMd).toContain('- paths/nvbandwidth skipped: not present');
  });

  it('runs each stage on all 8 GPUs: the collectives on 8 ranks both ways, the matrix over 56 pairs', () => {
    const coll = run.summary.stages['collectives']!.figures.map((f) => f.what);
    for (const mode of ['rank per process', 'single process']) {
      for (const v of [
        'allgather default',
        'alltoall default',
        'allgather ce',
        'alltoall ce',
        'alltoall gin-sdma-lib',
      ]) {
        expect(coll).toContain(`${v}, ${mode}, x8, 256 MiB: busbw`);
      }
    }
    const matrix = run.summary.stages['matrix']!;
    expect(matrix.figures.filter((f) => f.what.includes('56 pairs alone'))).toHaveLength(4);
    // The simulated node's pairs differ by seeded noise only: no pair is named weak.
    expect(Object.values(matrix.weakPairs!).flat()).toEqual([]);
    expect(matrix.figures[0]!.note).toMatch(/^no pair stands out/);
  });

  it('sets each dimension beside its baseline of the same run, and keeps every sample’s mover evidence', () => {
    const paths = run.summary.stages['paths']!;
    const twoStreams = paths.figures.find((f) => f.what.startsWith('engine/host over 2 streams'))!;
    expect(twoStreams.references[0]).toMatchObject({ name: '1 stream, same sweep' });
    expect(twoStreams.references[0]!.ratio).toBeCloseTo(twoStreams.value! / twoStreams.references[0]!.value, 2);
    for (const path of ['cu/host', 'cu/device', 'engine/host', 'engine/device']) {
      expect(paths.notes).toContainEqual(
        expect.stringMatching(new RegExp(`^mover evidence, paths-sweep ${path}: simulated:`)),
      );
    }
    expect(run.summary.stages['overlap']!.figures.some((f) => f.what.startsWith('triad (memory-bound) beside'))).toBe(
      true,
    );
  });

  it('gives every step the three multicast settings, as a child process sees them', () => {
    expect(run.summary.env).toEqual(MULTICAST_OFF);
    expect(run.summary.multicastOff).toBe(true);
    for (const [k, v] of Object.entries(MULTICAST_OFF)) expect(run.log).toContain(`\n${k}=${v}\n`);
  });
});

describe('run-h200xN.sh with a failing step on the simulated 2-GPU node', () => {
  let run: ScriptRun;
  beforeAll(() => {
    // The caller's environment turns multicast on: the script must turn it off again.
    run = runScript({
      STAGES: 'collectives,paths,matrix,overlap',
      SIM_GPUS: '2',
      FAULT: 'coll-rank:bogus',
      NCCL_NVLS_ENABLE: '1',
      TORCH_SYMM_MEM_DISABLE_MULTICAST: '0',
    });
  }, 90_000);

  it('logs the step as failed, the stage as failed, and still exits 0 with a summary', () => {
    expect(run.status).toBe(0);
    expect(run.log).toContain('FAULT hook: --fault bogus added to coll-rank');
    expect(run.log).toContain('FAILED: collectives/coll-rank (exit 2;');
    const coll = run.summary.stages['collectives']!;
    expect(coll.status).toBe('failed');
    expect(coll.reason).toBe('coll-rank: exit 2; usage: --fault is not a flag of collective');
    expect(run.summary.failed.map((s) => `${s.stage}/${s.step}`)).toEqual(['collectives/coll-rank']);
  });

  it('still runs the later steps of that stage and the later stages', () => {
    const coll = run.summary.stages['collectives']!;
    expect(coll.steps.find((s) => s.step === 'coll-single')).toMatchObject({ status: 'ran' });
    expect(coll.figures.every((f) => f.what.includes('single process, x2'))).toBe(true);
    expect(coll.figures.length).toBeGreaterThan(0);
    for (const s of ['paths', 'matrix', 'overlap']) expect(run.summary.stages[s]!.status).toBe('ran');
    expect(run.summary.stages['device-api']).toMatchObject({
      status: 'not-selected',
      reason: 'not in STAGES=collectives,paths,matrix,overlap',
    });
  });

  it('scales to the node: two GPUs, two pairs, too few for the outlier rule to name a pair', () => {
    expect(run.summary.gpus).toBe(2);
    const matrix = run.summary.stages['matrix']!.figures.filter((f) => f.what.includes('pairs alone'));
    expect(matrix).toHaveLength(4);
    for (const f of matrix) expect(f.note).toBe('not judged: 2 pairs, the outlier rule needs 3');
  });

  it('overrides multicast settings the caller turned on', () => {
    expect(run.summary.env).toEqual(MULTICAST_OFF);
  });
});

describe('run-h200xN.sh STAGES', () => {
  it('refuses an unknown stage before running anything (exit 2)', () => {
    const run = runScript({ STAGES: 'paths,bogus' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("STAGES: unknown stage 'bogus'");
    expect(run.files).toEqual([]);
  });
});
