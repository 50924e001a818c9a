import { describe, expect, it } from 'vitest';
import { applySavedValue, newRun } from '../../src/core/run';
import { runTabLabel, tabLabel } from '../../src/core/runs/runLabel';
import { header, hello } from '../support/records';

describe("a run's tab label", () => {
  const id = '2026-11-30T01-02-03-456Z-sweep-auto-k3f9';

  it('names the backend the run used, not the "auto" it asked for: a simulated run is sim', () => {
    const run = newRun(header(id));
    expect(runTabLabel(run)).toBe('01:02:03');
    applySavedValue(run, hello);
    expect(runTabLabel(run)).toBe('01:02:03 sim');
    const hip = newRun(header(id));
    applySavedValue(hip, { ...hello, backend: 'hip', simulated: false });
    expect(runTabLabel(hip)).toBe('01:02:03 hip');
  });

  it('keeps a backend the id names when the helper has not said, and the id itself when it is not one of ours', () => {
    expect(runTabLabel(newRun(header('2026-11-30T01-02-03-456Z-matrix-cuda-k3f9')))).toBe('01:02:03 cuda');
    expect(runTabLabel(newRun(header('handwritten')))).toBe('00:00:00');
    expect(tabLabel({ id: 'x', createdAt: 'not a time', simulated: false })).toBe('x');
  });

  it('is the same format for every panel: a collective, a matrix, an import, a comparison side', () => {
    const collective = newRun({ ...header('2026-11-30T04-05-06-000Z-collective-auto-abcd'), command: 'collective' });
    applySavedValue(collective, { ...hello, command: 'collective' });
    expect(runTabLabel(collective)).toBe('04:05:06 sim');
    const imported = newRun({
      ...header('2026-11-30T07-08-09-000Z-import-TransferBench-abcd'),
      source: { tool: 'TransferBench', format: 'text', file: 'a.txt' },
    });
    expect(runTabLabel(imported)).toBe('07:08:09 TransferBench');
    expect(tabLabel({ id, createdAt: '2026-11-30T01:02:03.456Z', simulated: true })).toBe('01:02:03 sim');
  });
});
