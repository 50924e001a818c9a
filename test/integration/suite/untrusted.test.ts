import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { EXTENSION_ID, invocations, spyOnWindow } from './support';

suite('an untrusted workspace', () => {
  test('the window is in Restricted Mode', () => {
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a folder is open');
    assert.equal(vscode.workspace.isTrusted, false);
    // The recording helper wrapper is in place, so "no invocation" below means none happened.
    assert.match(vscode.workspace.getConfiguration('sdmaLens').get<string>('helperPath') ?? '', /sdma-probe$/);
  });

  test('the extension declares it needs trust, and why', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const capabilities = (
      ext.packageJSON as { capabilities?: { untrustedWorkspaces?: { supported?: boolean; description?: string } } }
    ).capabilities;
    assert.equal(capabilities?.untrustedWorkspaces?.supported, false);
    // VS Code shows this description for the extension in Restricted Mode.
    assert.match(capabilities?.untrustedWorkspaces?.description ?? '', /native helper binary/);
  });

  test('a palette command, shown only here, says why the others are missing and offers the way to trust', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    const palette =
      (ext?.packageJSON as { contributes?: { menus?: { commandPalette?: { command: string; when?: string }[] } } })
        .contributes?.menus?.commandPalette ?? [];
    assert.equal(palette.find((m) => m.command === 'sdmaLens.restrictedMode')?.when, '!isWorkspaceTrusted');
    if (!(ext?.isActive ?? false)) return; // VS Code keeps an installed extension disabled here: its description says why.
    const infos = spyOnWindow('showInformationMessage');
    let said: unknown;
    try {
      said = await vscode.commands.executeCommand('sdmaLens.restrictedMode');
    } finally {
      infos.restore();
    }
    assert.match(
      String(said),
      /Restricted Mode\. SDMA Lens runs a native helper binary .* are hidden from the Command Palette/,
    );
    assert.equal(infos.calls.length, 1);
    assert.equal(infos.calls[0]![0], said);
    assert.ok(infos.calls[0]!.includes('Manage Workspace Trust'), 'the message offers the way out');
    assert.deepEqual(invocations(), [], 'the helper was never started');
  });

  test('Run Transfer Sweep runs no binary and says why', async () => {
    // VS Code keeps an extension under development enabled in Restricted Mode (an installed one
    // is disabled outright), so here the extension's own guard is what is tested.
    await expectRefused(
      'sdmaLens.runSweep',
      { options: { backend: 'sim', sizes: [4096], cus: [8], iters: 1 } },
      /does not run a transfer sweep in an untrusted workspace: it would run a native helper binary/,
      (warnings) => {
        assert.equal(warnings.length, 1, warnings.map((c) => String(c[0])).join(' | '));
        assert.ok(warnings[0]!.includes('Manage Workspace Trust'), 'the message offers the way out');
      },
    );
    // (expectRefused also checked that the helper was never started, not even for --version.)
  });

  test('Import rocprofv3 Profile reads nothing and says why', async () => {
    await expectRefused(
      'sdmaLens.importProfile',
      { path: '/nonexistent/profile.db' },
      /does not import a profile in an untrusted workspace/,
    );
  });

  // Every other command that would start the helper or the user's program: refused, with why.
  const guarded: [command: string, args: unknown, says: RegExp][] = [
    [
      'sdmaLens.runMatrix',
      { options: { backend: 'sim', gpus: [0, 1], paths: ['engine/host'], sizeBytes: 1 << 20, iters: 1 } },
      /does not run a bandwidth matrix in an untrusted workspace/,
    ],
    [
      'sdmaLens.runCollective',
      { backend: 'sim', args: ['-b', '1M', '-e', '1M'] },
      /does not run a collective sweep in an untrusted workspace/,
    ],
    [
      'sdmaLens.runOverlap',
      { backend: 'sim', args: [] },
      /does not run a compute overlap run in an untrusted workspace/,
    ],
    [
      'sdmaLens.profile',
      { kernel: 'k', program: { program: '/bin/true', args: [], cwd: '/', env: {} } },
      /does not run a program in an untrusted workspace/,
    ],
    ['sdmaLens.showTimeline', { runId: 'none' }, /does not show a timeline in an untrusted workspace/],
    [
      'sdmaLens.runFleet',
      { nodes: 2, options: { backend: 'sim', sizes: [4096], cus: [8], iters: 1 } },
      /does not run a fleet sweep in an untrusted workspace/,
    ],
    ['sdmaLens.selectTarget', 'nobody@127.0.0.1', /does not select a target in an untrusted workspace/],
  ];
  for (const [command, args, says] of guarded) {
    test(`${command} runs nothing and says why`, async () => {
      await expectRefused(command, args, says);
    });
  }
});

/**
 * Runs `command` with the warnings watched. With the extension active: nothing ran and a
 * warning says `says` (`more` checks the warnings further); with the extension kept disabled by
 * VS Code: the command is unavailable. Either way the helper was never started.
 */
async function expectRefused(
  command: string,
  args: unknown,
  says: RegExp,
  more?: (warnings: unknown[][]) => void,
): Promise<void> {
  const warnings = spyOnWindow('showWarningMessage');
  let outcome: unknown;
  try {
    outcome = await vscode.commands.executeCommand(command, args);
  } catch (err) {
    outcome = err;
  } finally {
    warnings.restore();
  }
  if (vscode.extensions.getExtension(EXTENSION_ID)?.isActive ?? false) {
    assert.equal(outcome, undefined, 'nothing ran');
    assert.match(warnings.calls.map((c) => String(c[0])).join(' | '), says);
    more?.(warnings.calls);
  } else {
    assert.ok(outcome instanceof Error, 'the command is unavailable while VS Code keeps the extension disabled');
  }
  assert.deepEqual(invocations(), [], 'the helper was never started');
}
