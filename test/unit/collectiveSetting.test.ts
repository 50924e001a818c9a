/**
 * `sdmaLens.collective.mode`: what the settings reader takes and refuses (a value in
 * settings.json can be anything), and the contribution that declares it, in step with the
 * modes the helper takes. `vscode` is replaced by the little the reader uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const settings = vi.hoisted(() => ({ values: {} as Record<string, unknown> }));

vi.mock('vscode', () => ({
  l10n: {
    t: (message: string, ...args: unknown[]) =>
      message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])),
  },
  workspace: {
    getConfiguration: () => ({
      get: (name: string) => settings.values[name],
      inspect: (name: string) => ({ globalValue: settings.values[name] }),
    }),
  },
}));

import { COLLECTIVE_RUN_MODES, DEFAULT_COLLECTIVE_MODE } from '../../src/core/protocol';
import { SettingError, collectiveSettings } from '../../src/extension/settings';

beforeEach(() => {
  settings.values = {};
});

describe('sdmaLens.collective.mode', () => {
  it('is rank-per-process unless set, and either mode the helper takes when set', () => {
    expect(collectiveSettings()).toEqual({ mode: 'rank-per-process' });
    settings.values['collective.mode'] = 'single-process';
    expect(collectiveSettings()).toEqual({ mode: 'single-process' });
    settings.values['collective.mode'] = 'rank-per-process';
    expect(collectiveSettings()).toEqual({ mode: 'rank-per-process' });
  });

  it('refuses anything else with a message naming the setting, the modes and what it got (never a helper argument)', () => {
    for (const bad of [
      '--backend=hip',
      'single-process --gpus 0',
      'threads',
      '',
      'Single-Process',
      3,
      true,
      ['single-process'],
      {},
    ]) {
      settings.values['collective.mode'] = bad;
      expect(() => collectiveSettings(), JSON.stringify(bad)).toThrow(SettingError);
      expect(() => collectiveSettings(), JSON.stringify(bad)).toThrow(
        /^Setting sdmaLens\.collective\.mode: must be one of rank-per-process, single-process \(got /,
      );
    }
  });

  it('is contributed with the same modes and default, overridable per machine, its words in package.nls.json', () => {
    const root = join(__dirname, '..', '..');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, Record<string, unknown>> } };
    };
    const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const setting = pkg.contributes.configuration.properties['sdmaLens.collective.mode']!;
    expect(setting).toMatchObject({
      type: 'string',
      enum: [...COLLECTIVE_RUN_MODES],
      default: DEFAULT_COLLECTIVE_MODE,
      scope: 'machine-overridable',
    });
    expect(nls['config.collective.mode.markdownDescription']).toMatch(/--mode/);
    expect((setting.enumDescriptions as string[]).length).toBe(COLLECTIVE_RUN_MODES.length);
  });
});
