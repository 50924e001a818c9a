/**
 * Restricted Mode says why SDMA Lens's commands are missing: VS Code's own description of the
 * extension, a palette command shown only while the workspace is untrusted, and the Runs view's
 * welcome, all in step with the commands the palette hides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
interface Manifest {
  capabilities: { untrustedWorkspaces: { supported: boolean | string; description?: string } };
  contributes: {
    commands: { command: string; title: string }[];
    menus: { commandPalette: { command: string; when?: string }[] };
    viewsWelcome: { view: string; contents: string; when?: string }[];
  };
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const titleOf = (command: string) => {
  const key = /^%(.+)%$/.exec(pkg.contributes.commands.find((c) => c.command === command)?.title ?? '')?.[1];
  return key ? nls[key] : undefined;
};

describe('Restricted Mode', () => {
  it('VS Code shows why SDMA Lens needs trust and what to do', () => {
    expect(pkg.capabilities.untrustedWorkspaces.supported).toBe(false);
    expect(pkg.capabilities.untrustedWorkspaces.description).toMatch(
      /native helper binary.*only runs in trusted workspaces\. Trust the folder \(Manage Workspace Trust\) to use its commands\.$/,
    );
  });

  it('a palette command, shown only while untrusted, says why the others are hidden', () => {
    expect(titleOf('sdmaLens.restrictedMode')).toBe('Why Are Commands Missing? (Restricted Mode)');
    expect(pkg.contributes.menus.commandPalette.find((m) => m.command === 'sdmaLens.restrictedMode')?.when).toBe(
      '!isWorkspaceTrusted',
    );
    expect(readFileSync(join(root, 'src/extension/extension.ts'), 'utf8')).toContain(
      "registerCommand('sdmaLens.restrictedMode', () => restrictedModeCommand())",
    );
  });

  it('its message names every command the palette hides until the workspace is trusted', () => {
    const hidden = pkg.contributes.menus.commandPalette
      .filter((m) =>
        m.when
          ?.split('&&')
          .map((x) => x.trim())
          .includes('isWorkspaceTrusted'),
      )
      .map((m) => m.command);
    expect(hidden.length).toBeGreaterThan(5);
    const message =
      /Restricted Mode\. SDMA Lens runs [^']*/.exec(
        readFileSync(join(root, 'src/extension/commands/restrictedMode.ts'), 'utf8'),
      )?.[0] ?? '';
    expect(message).toMatch(
      /are hidden from the Command Palette, and the others refuse, until you trust the workspace\.$/,
    );
    for (const command of hidden) expect(message).toContain(titleOf(command));
  });

  it('the Runs view, untrusted, links the way to trust and the command that explains', () => {
    const welcome = pkg.contributes.viewsWelcome.find(
      (w) => w.view === 'sdmaLens.runs' && w.when === '!isWorkspaceTrusted',
    );
    const text = nls[/^%(.+)%$/.exec(welcome?.contents ?? '')?.[1] ?? ''] ?? '';
    expect(text).toContain('[Manage Workspace Trust](command:workbench.trust.manage)');
    expect(text).toContain('(command:sdmaLens.restrictedMode)');
  });
});
