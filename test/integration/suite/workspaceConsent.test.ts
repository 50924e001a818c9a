import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { SMALL_SWEEP, activeApi, answerModals, invocations, spyOnWindow, waitFor } from './support';

/**
 * Settings that choose what runs or where, as a repository's `.vscode/settings.json` can set
 * them: a helper path from the workspace is never used; Profile's program and an SSH target
 * from the workspace are shown and confirmed before anything runs or connects.
 */
suite('settings a workspace sets that choose what runs or where', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const config = () => vscode.workspace.getConfiguration('sdmaLens');

  test("a workspace's sdmaLens.helperPath is ignored: the helper is the one of the user settings", async () => {
    const api = await activeApi();
    const userHelper = config().inspect<string>('helperPath')?.globalValue;
    assert.match(userHelper ?? '', /sdma-probe$/, 'the launch sets the helper in the user settings');
    const file = path.join(folder(), '.vscode', 'settings.json');
    const original = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    const rogueDir = mkdtempSync(path.join(tmpdir(), 'sdma-lens-rogue-'));
    const rogue = path.join(rogueDir, 'sdma-probe');
    writeFileSync(rogue, `#!/bin/sh\ntouch '${path.join(rogueDir, 'ran')}'\nexit 1\n`);
    chmodSync(rogue, 0o755);
    try {
      // Written as a repository would carry it (VS Code refuses to write a machine setting there);
      // the backend entry, the default value, makes the helper be looked up afresh.
      const settings = {
        ...((original ? JSON.parse(original) : {}) as Record<string, unknown>),
        'sdmaLens.helperPath': rogue,
        'sdmaLens.defaultBackend': 'auto',
      };
      writeFileSync(file, JSON.stringify(settings, null, 2));
      await waitFor('the workspace settings read', () => config().inspect('defaultBackend')?.workspaceValue === 'auto');
      const helper = await api.deps.helper.get();
      assert.equal(helper.path, userHelper);
      assert.equal(existsSync(path.join(rogueDir, 'ran')), false, "the workspace's helper was never started");
    } finally {
      if (original === undefined) rmSync(file, { force: true });
      else writeFileSync(file, original);
      await waitFor(
        'the workspace settings restored',
        () => config().inspect('defaultBackend')?.workspaceValue === undefined,
      );
      rmSync(rogueDir, { recursive: true, force: true });
    }
  });

  test("Profile's program from the workspace settings: asked once, Cancel runs nothing, Run runs, the same values are not asked again, changed ones are", async () => {
    await activeApi();
    const token = `consent-${Date.now()}`;
    const modals = answerModals(() => undefined);
    const profile = () => vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', { simDispatches: 1 });
    try {
      await config().update('profile.program', '/bin/sh', vscode.ConfigurationTarget.Workspace);
      await config().update('profile.args', ['-c', `echo ${token}`], vscode.ConfigurationTarget.Workspace);
      const before = invocations().length;

      // Cancel: nothing runs.
      assert.equal(await profile(), undefined, 'nothing ran');
      assert.equal(modals.calls.length, 1, 'asked once');
      const asked = modals.calls[0]!;
      assert.match(asked.message, /settings of this workspace choose the program Profile runs/);
      assert.match(asked.detail, /sdmaLens\.profile\.program = "\/bin\/sh"/);
      assert.ok(asked.detail.includes(`sdmaLens.profile.args = ["-c","echo ${token}"]`), asked.detail);
      assert.equal(asked.buttons.length, 1, "one button besides the modal's Cancel");
      assert.equal(invocations().length, before, 'the helper was not started');

      // Run: it runs, and the same values are not asked about again.
      modals.answer = (_m, _o, buttons) => buttons[0];
      const accepted = await profile();
      assert.equal(accepted?.end?.status, 'ok', accepted?.end?.message);
      assert.ok(accepted.header.helper.args.includes(`echo ${token}`), accepted.header.helper.args.join(' '));
      assert.equal(modals.calls.length, 2);
      const again = await profile();
      assert.equal(again?.end?.status, 'ok', again?.end?.message);
      assert.equal(modals.calls.length, 2, 'the same values are not asked about again');

      // A changed value asks again.
      await config().update('profile.args', ['-c', `echo ${token}-changed`], vscode.ConfigurationTarget.Workspace);
      const changed = await profile();
      assert.equal(modals.calls.length, 3, 'a changed value is asked about');
      assert.ok(modals.calls[2]!.detail.includes(`echo ${token}-changed`), modals.calls[2]!.detail);
      assert.equal(changed?.end?.status, 'ok', changed?.end?.message);
      assert.ok(changed.header.helper.args.includes(`echo ${token}-changed`));
    } finally {
      modals.restore();
      await config().update('profile.args', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('profile.program', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('an SSH target from the workspace settings is asked about before anything connects; Cancel connects nothing, Connect does, once', async () => {
    const api = await activeApi();
    // A stand-in for the ssh client on PATH, which the extension host resolves when it starts ssh:
    // it notes each call and fails as an unreachable host would.
    const dir = mkdtempSync(path.join(tmpdir(), 'sdma-lens-ssh-'));
    const log = path.join(dir, 'ssh.log');
    writeFileSync(
      path.join(dir, 'ssh'),
      `#!/bin/sh\necho "$*" >> '${log}'\necho "ssh: connect to host 127.0.0.1 port 1: Connection refused" >&2\nexit 255\n`,
    );
    chmodSync(path.join(dir, 'ssh'), 0o755);
    const pathBefore = process.env.PATH;
    process.env.PATH = `${dir}${path.delimiter}${pathBefore ?? ''}`;
    const user = `u${Date.now()}`;
    const destination = `${user}@127.0.0.1:1`;
    let sshRanBeforeAsked: boolean | undefined;
    const modals = answerModals(() => {
      sshRanBeforeAsked = existsSync(log);
      return undefined;
    });
    const errors = spyOnWindow('showErrorMessage');
    const sweep = () => vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    try {
      await config().update('target', destination, vscode.ConfigurationTarget.Workspace);
      assert.deepEqual(
        api.deps.targets?.choice(),
        { kind: 'ssh', destination },
        'the workspace setting is the target (no target chosen for this workspace)',
      );

      assert.equal(await sweep(), undefined);
      assert.equal(modals.calls.length, 1, 'asked');
      assert.ok(modals.calls[0]!.message.includes(destination), modals.calls[0]!.message);
      assert.ok(modals.calls[0]!.detail.includes(`sdmaLens.target = "${destination}"`), modals.calls[0]!.detail);
      assert.equal(sshRanBeforeAsked, false, 'nothing connected before the question');
      assert.equal(existsSync(log), false, 'Cancel: nothing connected');
      assert.deepEqual(errors.calls, [], 'Cancel is no error');

      modals.answer = (_m, _o, buttons) => buttons[0];
      assert.equal(await sweep(), undefined, 'the stand-in ssh fails');
      assert.equal(modals.calls.length, 2);
      assert.ok(existsSync(log) && readFileSync(log, 'utf8').includes(user), 'Connect: ssh was started for the target');
      const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;

      await sweep();
      assert.equal(modals.calls.length, 2, 'the same target is not asked about again');
      assert.ok(readFileSync(log, 'utf8').split('\n').filter(Boolean).length > calls, 'and it is used');
    } finally {
      modals.restore();
      errors.restore();
      process.env.PATH = pathBefore;
      await config().update('target', undefined, vscode.ConfigurationTarget.Workspace);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
