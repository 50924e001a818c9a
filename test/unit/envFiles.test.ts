import { describe, expect, it } from 'vitest';
import { diagnoseAssignments } from '../../src/core/advice/diagnose';
import { applyTextEdits, findAssignments, setJsonEnv, setLineVariables } from '../../src/core/advice/envFiles';

describe('knob assignments in files', () => {
  it('reads .env and shell lines, with and without export and quotes', () => {
    const text =
      '# comment\nNCCL_GIN_TYPE=7\nexport NCCL_GIN_ENABLE="1"\n  ROCSHMEM_SDMA_THRESHOLD=262144 # bytes\nlower=1\n';
    const found = findAssignments(text, 'shell');
    expect(found.map((a) => [a.name, a.value])).toEqual([
      ['NCCL_GIN_TYPE', '7'],
      ['NCCL_GIN_ENABLE', '1'],
      ['ROCSHMEM_SDMA_THRESHOLD', '262144'],
    ]);
    for (const a of found) expect(text.slice(a.valueStart, a.valueEnd)).toBe(a.value);
  });

  it('reads env of launch configurations and tasks, comments allowed', () => {
    const text = `{
  // launch configurations
  "version": "0.2.0",
  "configurations": [
    { "name": "train", "env": { "NCCL_GIN_TYPE": "6", "N": 3 } },
    { "name": "other" }
  ],
  "tasks": [ { "label": "t", "options": { "env": { "HSA_ENABLE_SDMA": "0" } } } ]
}`;
    const found = findAssignments(text, 'launch');
    expect(found.map((a) => [a.name, a.value])).toEqual([
      ['NCCL_GIN_TYPE', '6'],
      ['N', '3'],
      ['HSA_ENABLE_SDMA', '0'],
    ]);
    for (const a of found) expect(text.slice(a.valueStart, a.valueEnd)).toBe(a.value);
  });

  it('sets variables in a .env file: replaces in place, appends the rest, never duplicates', () => {
    const text = 'A=1\nNCCL_GIN_TYPE=5\n';
    const out = applyTextEdits(text, setLineVariables(text, { NCCL_GIN_TYPE: '7', NCCL_GIN_ENABLE: '1' }, 'dotenv'));
    expect(out).toBe('A=1\nNCCL_GIN_TYPE=7\nNCCL_GIN_ENABLE=1\n');
    expect(setLineVariables(out, { NCCL_GIN_TYPE: '7' }, 'dotenv')).toEqual([]);
    expect(applyTextEdits('X=1', setLineVariables('X=1', { Y: '2' }, 'shell'))).toBe('X=1\nexport Y=2\n');
  });

  it('sets env of a launch configuration, keeping comments, creating what is missing', () => {
    const text =
      '{\n  // keep me\n  "version": "0.2.0",\n  "configurations": [ { "name": "train", "type": "cppdbg" } ]\n}\n';
    const out = applyTextEdits(text, setJsonEnv(text, 'launch', 'train', { NCCL_GIN_TYPE: '7' }));
    expect(out).toContain('// keep me');
    expect(findAssignments(out, 'launch').map((a) => [a.name, a.value])).toEqual([['NCCL_GIN_TYPE', '7']]);
    const fresh = applyTextEdits('', setJsonEnv('', 'tasks', 'SDMA Lens env', { NCCL_GIN_ENABLE: '1' }));
    expect(JSON.parse(fresh)).toMatchObject({
      version: '2.0.0',
      tasks: [{ label: 'SDMA Lens env', options: { env: { NCCL_GIN_ENABLE: '1' } } }],
    });
    expect(setJsonEnv(out, 'launch', 'train', { NCCL_GIN_TYPE: '7' })).toEqual([]);
  });
});

describe('diagnostics against the catalog', () => {
  const at = (text: string) => findAssignments(text, 'dotenv');

  it('warns when NCCL_GIN_TYPE=7 is set on an RCCL where 7 is not Anvil SDMA, with the fix', () => {
    const [p] = diagnoseAssignments(at('NCCL_GIN_TYPE=7\n'), { rccl: '2.30.8' });
    expect(p).toMatchObject({ severity: 'warning', fix: '6' });
    expect(p!.message).toMatch(/not a known value for RCCL 2\.30\.8/);
    const [q] = diagnoseAssignments(at('NCCL_GIN_TYPE=5\n'), { rccl: '2.31.0' });
    expect(q).toMatchObject({ severity: 'warning', fix: '7' });
    expect(q!.message).toMatch(/selects EFA GDA .* on RCCL 2\.31\.0, not the copy engines: Anvil SDMA is 7/);
  });

  it('accepts the right value and says nothing', () => {
    expect(diagnoseAssignments(at('NCCL_GIN_TYPE=7\nNCCL_GIN_ENABLE=1\n'), { rccl: '2.31.1' })).toEqual([]);
  });

  it('with an unknown version, explains an ambiguous value instead of warning', () => {
    const [p] = diagnoseAssignments(at('NCCL_GIN_TYPE=6\n'), {});
    expect(p?.severity).toBe('information');
    expect(p?.message).toMatch(/Anvil SDMA .*or rocSHMEM GDA/);
  });

  it('catches bad numbers, bad flags and knobs the version does not read', () => {
    const problems = diagnoseAssignments(
      at('ROCSHMEM_SDMA_THRESHOLD=256K\nNCCL_GIN_ENABLE=yes\nNCCL_GIN_A2A_SDMA_MIN_BYTES=1\n'),
      { rccl: '2.27.0' },
    );
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/whole number of bytes per put/),
      expect.stringMatching(/is not read by RCCL 2\.27\.0/),
      expect.stringMatching(/is not read by RCCL 2\.27\.0/),
    ]);
  });
});
