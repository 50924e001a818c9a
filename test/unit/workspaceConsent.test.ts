/**
 * The pure parts of confirming values a workspace's settings chose (src/extension/workspaceConsent.ts)
 * and of reading machine settings from user settings only (src/extension/settings.ts): which
 * values need a confirmation, the key a confirmation is kept under, what the dialog shows, and
 * the confirmation kept per set of values. `vscode` is replaced by the little these use.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const dialog = vi.hoisted(() => ({ answer: undefined as string | undefined, calls: [] as unknown[][] }));

vi.mock('vscode', () => ({
  l10n: {
    t: (message: string, ...args: unknown[]) =>
      message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])),
  },
  window: {
    showWarningMessage: (...args: unknown[]) => {
      dialog.calls.push(args);
      return Promise.resolve(dialog.answer);
    },
  },
  workspace: { getConfiguration: () => ({ inspect: () => undefined, get: () => undefined }) },
}));

import type { ConsentEntry } from '../../src/extension/workspaceConsent';
import {
  ConsentDeclined,
  WorkspaceConsent,
  consentKey,
  entryLines,
  showable,
  workspaceEntries,
} from '../../src/extension/workspaceConsent';
import { fromUserSettingsOnly } from '../../src/extension/settings';

describe('workspaceEntries: which values the workspace chose', () => {
  it('none when nothing, the user or the default sets the value', () => {
    expect(workspaceEntries('sdmaLens.profile.program', undefined)).toEqual([]);
    expect(workspaceEntries('sdmaLens.profile.program', { defaultValue: '' })).toEqual([]);
    expect(workspaceEntries('sdmaLens.profile.program', { defaultValue: '', globalValue: '/home/me/app' })).toEqual([]);
  });

  it("the workspace's value, and the folder's over the workspace's", () => {
    expect(
      workspaceEntries('sdmaLens.profile.program', {
        defaultValue: '',
        globalValue: '/home/me/app',
        workspaceValue: './evil',
      }),
    ).toEqual([{ setting: 'sdmaLens.profile.program', scope: 'workspace', value: './evil' }]);
    expect(
      workspaceEntries('sdmaLens.profile.args', {
        defaultValue: [],
        workspaceValue: ['-a'],
        workspaceFolderValue: ['-b'],
      }),
    ).toEqual([{ setting: 'sdmaLens.profile.args', scope: 'workspaceFolder', value: ['-b'] }]);
    expect(workspaceEntries('sdmaLens.target', { defaultValue: 'local', workspaceValue: 'alice@gpu-1' })).toEqual([
      { setting: 'sdmaLens.target', scope: 'workspace', value: 'alice@gpu-1' },
    ]);
  });

  it("none when the workspace repeats the value beneath it (the user's, else the default)", () => {
    expect(
      workspaceEntries('sdmaLens.profile.cwd', {
        defaultValue: '${workspaceFolder}',
        workspaceValue: '${workspaceFolder}',
      }),
    ).toEqual([]);
    expect(
      workspaceEntries('sdmaLens.profile.args', {
        defaultValue: [],
        globalValue: ['-x', '1'],
        workspaceValue: ['-x', '1'],
      }),
    ).toEqual([]);
    // The same value as the default, but the user chose another: the workspace's counts.
    expect(
      workspaceEntries('sdmaLens.target', { defaultValue: 'local', globalValue: 'bob@node', workspaceValue: 'local' }),
    ).toHaveLength(1);
  });

  it('an object (an environment, merged across levels): the keys the workspace adds or changes', () => {
    const seen = {
      defaultValue: {},
      globalValue: { A: '1', B: '2' },
      workspaceValue: { A: '1', B: 'x', LD_PRELOAD: '/tmp/x.so' },
    };
    expect(workspaceEntries('sdmaLens.profile.env', seen, { object: true })).toEqual([
      { setting: 'sdmaLens.profile.env', scope: 'workspace', value: { B: 'x', LD_PRELOAD: '/tmp/x.so' } },
    ]);
    expect(
      workspaceEntries(
        'sdmaLens.profile.env',
        { defaultValue: {}, globalValue: { A: '1' }, workspaceValue: { A: '1' } },
        { object: true },
      ),
    ).toEqual([]);
    expect(
      workspaceEntries('sdmaLens.profile.env', { defaultValue: {}, workspaceValue: {} }, { object: true }),
    ).toEqual([]);
    expect(
      workspaceEntries(
        'sdmaLens.profile.env',
        { defaultValue: {}, workspaceValue: { A: '1' }, workspaceFolderValue: { A: '2', C: '3' } },
        { object: true },
      ),
    ).toEqual([{ setting: 'sdmaLens.profile.env', scope: 'workspaceFolder', value: { A: '2', C: '3' } }]);
  });
});

describe('consentKey: the key a confirmation is kept under', () => {
  const entries: ConsentEntry[] = [
    { setting: 'sdmaLens.profile.program', scope: 'workspace', value: '/bin/sh' },
    { setting: 'sdmaLens.profile.env', scope: 'workspace', value: { A: '1', B: '2' } },
  ];

  it('a sha256, the same for the same names and values in any order', () => {
    const key = consentKey('profile', 'file:///w', entries);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(consentKey('profile', 'file:///w', [...entries].reverse())).toBe(key);
    expect(consentKey('profile', 'file:///w', [entries[0]!, { ...entries[1]!, value: { B: '2', A: '1' } }])).toBe(key);
    // Where a value came from is not what runs.
    expect(
      consentKey(
        'profile',
        'file:///w',
        entries.map((e) => ({ ...e, scope: 'workspaceFolder' as const })),
      ),
    ).toBe(key);
  });

  it('another key for another value, setting name, kind or place', () => {
    const key = consentKey('profile', 'file:///w', entries);
    expect(consentKey('profile', 'file:///w', [entries[0]!, { ...entries[1]!, value: { A: '1', B: '3' } }])).not.toBe(
      key,
    );
    expect(consentKey('profile', 'file:///w', [{ ...entries[0]!, value: '/bin/bash' }, entries[1]!])).not.toBe(key);
    expect(
      consentKey('profile', 'file:///w', [{ ...entries[0]!, setting: 'sdmaLens.profile.cwd' }, entries[1]!]),
    ).not.toBe(key);
    expect(consentKey('target', 'file:///w', entries)).not.toBe(key);
    expect(consentKey('profile', 'file:///v', entries)).not.toBe(key);
    // An argument list is not its words joined.
    const one = consentKey('profile', '', [{ setting: 'sdmaLens.profile.args', scope: 'workspace', value: ['a b'] }]);
    expect(
      consentKey('profile', '', [{ setting: 'sdmaLens.profile.args', scope: 'workspace', value: ['a', 'b'] }]),
    ).not.toBe(one);
  });
});

describe('showable: values shown as data', () => {
  it('escapes control characters, C1 included', () => {
    expect(showable('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(showable('line\nnext\r')).toBe('line\\x0anext\\x0d');
    expect(showable('\u009b31m\u007f\u0000')).toBe('\\x9b31m\\x7f\\x00');
  });

  it('escapes the characters that reorder or hide text', () => {
    // "evil\u202E2pm.exe" would read as "evilexe.mp2" in a dialog.
    expect(showable('evil\u202e2pm.exe')).toBe('evil\\u202e2pm.exe');
    for (const c of [
      '\u061c',
      '\u200b',
      '\u200e',
      '\u200f',
      '\u2028',
      '\u2029',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\ufeff',
    ]) {
      expect(showable(`x${c}y`)).toBe(`x\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}y`);
    }
  });

  it('leaves ordinary text, other scripts included, as it is', () => {
    expect(showable('/opt/rocm/bin/app --size=1M "quoted" é 日本 עברית')).toBe(
      '/opt/rocm/bin/app --size=1M "quoted" é 日本 עברית',
    );
  });

  it('cuts a long value and says how much is left out', () => {
    const shown = showable('a'.repeat(2500));
    expect(shown.startsWith('a'.repeat(2000))).toBe(true);
    expect(shown).toMatch(/… \(500 more characters\)$/);
  });

  it('one line per setting, the value as JSON, escaped', () => {
    const lines = entryLines([
      { setting: 'sdmaLens.profile.args', scope: 'workspace', value: ['-c', 'echo \u202eoops'] },
      { setting: 'sdmaLens.profile.env', scope: 'workspace', value: { LD_PRELOAD: '/tmp/x.so' } },
    ]);
    expect(lines).toEqual([
      'sdmaLens.profile.args = ["-c","echo \\u202eoops"]',
      'sdmaLens.profile.env = {"LD_PRELOAD":"/tmp/x.so"}',
    ]);
  });
});

describe('fromUserSettingsOnly: settings that name a program the extension runs', () => {
  it("the user's value, else the default; a workspace value is ignored and flagged", () => {
    expect(
      fromUserSettingsOnly({ defaultValue: '', globalValue: '/usr/local/bin/sdma-probe', workspaceValue: './evil' }),
    ).toEqual({ value: '/usr/local/bin/sdma-probe', ignoredWorkspaceValue: true });
    expect(fromUserSettingsOnly({ defaultValue: '', workspaceFolderValue: './evil' })).toEqual({
      value: '',
      ignoredWorkspaceValue: true,
    });
    expect(fromUserSettingsOnly({ defaultValue: [], globalValue: ['-J', 'bastion'] })).toEqual({
      value: ['-J', 'bastion'],
      ignoredWorkspaceValue: false,
    });
    expect(fromUserSettingsOnly(undefined)).toEqual({ value: undefined, ignoredWorkspaceValue: false });
  });
});

describe('WorkspaceConsent: asked once per set of values', () => {
  class Memory {
    readonly data = new Map<string, unknown>();
    keys = () => [...this.data.keys()];
    get = <T>(key: string, fallback?: T) => (this.data.has(key) ? (this.data.get(key) as T) : fallback);
    update = (key: string, value: unknown) => {
      this.data.set(key, value);
      return Promise.resolve();
    };
  }
  const log = { info: vi.fn(), warn: vi.fn() };
  const request = (value: unknown) => ({
    kind: 'profile',
    place: 'file:///w',
    entries: [{ setting: 'sdmaLens.profile.program', scope: 'workspace' as const, value }],
    message: 'Run it?',
    accept: 'Run',
  });

  beforeEach(() => {
    dialog.calls.length = 0;
    dialog.answer = undefined;
  });

  it('nothing to ask: no dialog', async () => {
    const consent = new WorkspaceConsent(new Memory() as never, log as never);
    expect(await consent.confirm({ ...request('x'), entries: [] })).toBe(true);
    expect(dialog.calls).toHaveLength(0);
  });

  it('a modal listing the values; Cancel is not kept, Run is, a change asks again', async () => {
    const state = new Memory();
    const consent = new WorkspaceConsent(state as never, log as never);
    expect(await consent.confirm(request('./build/app'))).toBe(false);
    expect(dialog.calls).toHaveLength(1);
    const [message, options, ...buttons] = dialog.calls[0]!;
    expect(message).toBe('Run it?');
    expect(options).toMatchObject({ modal: true });
    expect((options as { detail: string }).detail).toContain('sdmaLens.profile.program = "./build/app"');
    expect(buttons).toEqual(['Run']);

    dialog.answer = 'Run';
    expect(await consent.confirm(request('./build/app'))).toBe(true);
    expect(dialog.calls).toHaveLength(2);
    expect(await consent.confirm(request('./build/app'))).toBe(true);
    expect(dialog.calls).toHaveLength(2);
    // Kept in the workspace's state: another instance on the same state does not ask either.
    expect(await new WorkspaceConsent(state as never, log as never).confirm(request('./build/app'))).toBe(true);
    expect(dialog.calls).toHaveLength(2);

    dialog.answer = undefined;
    expect(await consent.confirm(request('./build/other'))).toBe(false);
    expect(dialog.calls).toHaveLength(3);
  });

  it('the same question asked twice at once shows one dialog', async () => {
    dialog.answer = 'Run';
    const consent = new WorkspaceConsent(new Memory() as never, log as never);
    const both = await Promise.all([consent.confirm(request('a')), consent.confirm(request('a'))]);
    expect(both).toEqual([true, true]);
    expect(dialog.calls).toHaveLength(1);
  });

  it('values the user chose themselves can be kept without asking', async () => {
    const consent = new WorkspaceConsent(new Memory() as never, log as never);
    await consent.remember(request('${workspaceFolder}/build/app'));
    expect(await consent.confirm(request('${workspaceFolder}/build/app'))).toBe(true);
    expect(dialog.calls).toHaveLength(0);
  });

  it('a declined confirmation is an error of its own kind, saying nothing ran', () => {
    const err = new ConsentDeclined('the SSH target alice@gpu-1');
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/alice@gpu-1 .*not confirmed; nothing was run/);
  });
});
