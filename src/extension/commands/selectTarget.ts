/**
 * "SDMA Lens: Select Target": this machine, a host from ~/.ssh/config, a recent one, or a
 * typed `user@host[:port]`. A new SSH target is tried once (log in, run `true`) before it is
 * kept, so a typo or a missing key shows up here rather than in the middle of a sweep.
 */
import * as vscode from 'vscode';
import { SshError } from '../../core/ssh/connection';
import { parseDestination } from '../../core/ssh/destination';
import { sshConfigHosts } from '../../core/ssh/sshConfig';
import { SettingError } from '../settings';
import type { TargetChoice, TargetService } from '../targets';
import { choiceFromText } from '../targets';
import { reportError, requireTrust } from './guards';

interface TargetItem extends vscode.QuickPickItem {
  choice?: TargetChoice;
  enter?: boolean;
}

/** Scripted use passes "local" or a destination and gets no UI except errors. */
export async function selectTargetCommand(
  targets: TargetService,
  log: vscode.LogOutputChannel,
  text?: string,
): Promise<TargetChoice | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not select a target in an untrusted workspace: it would connect to the node over SSH. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const choice = typeof text === 'string' ? choiceFromText(text) : await pick(targets);
    if (!choice) return undefined;
    // Picked, typed or passed by the caller: the user's own choice, tried without asking again.
    if (choice.kind === 'ssh') targets.chosenByUser(choice.destination);
    if (choice.kind === 'ssh' && !(await tryConnection(targets, choice.destination, typeof text !== 'string')))
      return undefined;
    await targets.select(choice);
    return choice;
  } catch (err) {
    if (err instanceof SettingError) reportError(log, vscode.l10n.t('The target could not be selected'), err);
    else void vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: {0}', (err as Error).message));
    log.error(`select target: ${(err as Error).message}`);
    return undefined;
  }
}

async function pick(targets: TargetService): Promise<TargetChoice | undefined> {
  const current = targets.choice();
  const remote = vscode.env.remoteName;
  const items: TargetItem[] = [
    {
      label: remote
        ? vscode.l10n.t('$(server-environment) This node')
        : vscode.l10n.t('$(server-environment) This machine'),
      description: current.kind === 'local' ? vscode.l10n.t('current') : undefined,
      detail: remote
        ? vscode.l10n.t('The machine of this {0} window, where the extension runs', remote)
        : vscode.l10n.t('Run the helper here'),
      choice: { kind: 'local' },
    },
  ];
  const seen = new Set<string>();
  const add = (destination: string, detail: string) => {
    if (seen.has(destination)) return;
    seen.add(destination);
    items.push({
      label: `$(remote) ${destination}`,
      description: current.kind === 'ssh' && current.destination === destination ? vscode.l10n.t('current') : undefined,
      detail,
      choice: { kind: 'ssh', destination },
    });
  };
  const recent = targets.recent();
  if (recent.length > 0) items.push({ label: vscode.l10n.t('recent'), kind: vscode.QuickPickItemKind.Separator });
  for (const d of recent) add(d, vscode.l10n.t('Recently used'));
  const configured = await sshConfigHosts();
  if (configured.length > 0) items.push({ label: '~/.ssh/config', kind: vscode.QuickPickItemKind.Separator });
  for (const d of configured) add(d, vscode.l10n.t('From ~/.ssh/config'));
  items.push(
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    {
      label: vscode.l10n.t('$(add) Enter an SSH host...'),
      detail: vscode.l10n.t('user@host[:port], or an alias from ~/.ssh/config'),
      enter: true,
    },
  );

  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('SDMA Lens: where should the helper run?'),
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  if (!picked.enter) return picked.choice;
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('SDMA Lens: SSH target'),
    prompt: vscode.l10n.t(
      'user@host[:port] or an alias from ~/.ssh/config. SDMA Lens uses your ssh client, config and agent.',
    ),
    placeHolder: 'alice@gpu-node-3',
    validateInput: (value) => {
      try {
        parseDestination(value.trim());
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return typed ? choiceFromText(typed) : undefined;
}

async function tryConnection(targets: TargetService, destination: string, interactive: boolean): Promise<boolean> {
  const conn = targets.connection(destination);
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('SDMA Lens: connecting to {0}', destination),
        cancellable: true,
      },
      async (_progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        try {
          await conn.execChecked(['true'], { signal: controller.signal });
        } finally {
          sub.dispose();
        }
      },
    );
    return true;
  } catch (err) {
    const message = err instanceof SshError ? `${err.message}. ${err.remedy}` : (err as Error).message;
    if (!interactive) throw new Error(message);
    const anyway = vscode.l10n.t('Select Anyway');
    const another = vscode.l10n.t('Choose Another');
    const choice = await vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: {0}', message), anyway, another);
    if (choice === another) void vscode.commands.executeCommand('sdmaLens.selectTarget');
    return choice === anyway;
  }
}
