/**
 * The walkthrough's steps tick when their work is done, not when a command merely starts (the
 * sweep's quick pick could be dismissed): package.json against the context keys the extension sets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILE_RECORDED_KEY, SWEEP_MEASURED_KEY } from '../../src/extension/contextKeys';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { walkthroughs: { id: string; steps: { id: string; completionEvents?: string[] }[] }[] };
};
const step = (id: string) =>
  pkg.contributes.walkthroughs.find((w) => w.id === 'sdmaLens.start')!.steps.find((s) => s.id === id)!;

describe('the walkthrough', () => {
  it('"Run a transfer sweep" ticks when a sweep has measured, not when Run Transfer Sweep opens its quick pick', () => {
    expect(step('sweep').completionEvents).toEqual([`onContext:${SWEEP_MEASURED_KEY}`]);
    expect(step('sweep').completionEvents).not.toContain('onCommand:sdmaLens.runSweep');
  });

  it('the sweep command sets that key once a run has samples', () => {
    const source = readFileSync(join(root, 'src/extension/commands/runSweep.ts'), 'utf8');
    expect(source).toMatch(
      /if \(result\.run\.samples\.length > 0\) void vscode\.commands\.executeCommand\('setContext', SWEEP_MEASURED_KEY, true\);/,
    );
  });

  it('"Profile" ticks when a Profile run has recorded a launch or a copy, not when the command starts', () => {
    expect(step('profile').completionEvents).toEqual([`onContext:${PROFILE_RECORDED_KEY}`]);
    const source = readFileSync(join(root, 'src/extension/commands/profile.ts'), 'utf8');
    expect(source).toMatch(
      /if \(profileRun\.dispatches\.length \+ profileRun\.copies\.length > 0\)\s+void vscode\.commands\.executeCommand\('setContext', PROFILE_RECORDED_KEY, true\);/,
    );
  });
});
