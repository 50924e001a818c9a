import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from './support';

interface Contributes {
  commands: { command: string }[];
  configuration: { properties: Record<string, { default?: unknown; deprecationMessage?: string }> };
}

suite('activation on the sample HIP workspace', () => {
  test('the workspace is the HIP sample and trusted', () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a folder is open');
    assert.equal(vscode.workspace.isTrusted, true);
    // The launch's helper wrapper (see support.ts), read as a remote window reads machine settings.
    assert.match(vscode.workspace.getConfiguration('sdmaLens').get<string>('helperPath') ?? '', /sdma-probe$/);
  });

  test('the extension activates by itself (workspaceContains:**/*.hip)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is loaded`);
    // No activate() call here: the .hip file in the workspace must be what starts it.
    await waitFor('activation', () => ext.isActive, 30_000);
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
  });

  test('every contributed command is registered', async () => {
    const contributed = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes as Contributes
    ).commands.map((c) => c.command);
    assert.ok(contributed.includes('sdmaLens.runSweep'));
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], 'contributed commands without a handler');
  });

  test('the settings are contributed with their defaults', () => {
    const { properties } = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes as Contributes)
      .configuration;
    const config = vscode.workspace.getConfiguration('sdmaLens');
    for (const [key, schema] of Object.entries(properties)) {
      const name = key.replace(/^sdmaLens\./, '');
      const inspected = config.inspect(name);
      assert.ok(inspected, `${key} is known to VS Code`);
      if (!('default' in schema)) {
        // Only the deprecated settings have no default: they count only where a user set them.
        assert.ok(schema.deprecationMessage, `${key} has no default but is not deprecated`);
        continue;
      }
      assert.deepEqual(inspected.defaultValue, schema.default, `${key} default`);
    }
    assert.equal(config.get('defaultBackend'), 'auto');
    assert.ok(config.get<string[]>('sweep.sizes')!.length > 0);
  });

  test('Show Log runs without a helper', async () => {
    await vscode.commands.executeCommand('sdmaLens.showLog');
  });
});
