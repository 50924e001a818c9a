/**
 * What "Profile" runs: the program in `sdmaLens.profile.*`, or, the first time, one the
 * user picks (a file, a tasks.json process task, or CMake Tools' launch target), remembered
 * through a settings edit the user reviews.
 */
import * as path from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import * as vscode from 'vscode';
import { openKnobFile, reviewableEdit } from './reviewableEdit';
import { SettingError } from './settings';
import type { ConsentEntry } from './workspaceConsent';
import { workspaceEntries } from './workspaceConsent';

export interface ProgramSpec {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

const CMAKE_TOOLS = 'ms-vscode.cmake-tools';

function substitute(value: string, folder: string): string {
  return value.replace(/\$\{workspaceFolder\}/g, folder);
}

function checkedString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.includes('\0') || value.includes('\n'))
    throw new Error(vscode.l10n.t('Setting sdmaLens.profile.{0} must be a single-line string', name));
  return value;
}

/** The configured program, or undefined when none is set. Throws on malformed values. */
export function programFromSettings(folder: vscode.WorkspaceFolder): ProgramSpec | undefined {
  const config = vscode.workspace.getConfiguration('sdmaLens.profile', folder.uri);
  const program = checkedString(config.get('program'), 'program');
  if (!program) return undefined;
  const args = config.get<unknown>('args') ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string' && !a.includes('\0')))
    throw new Error(vscode.l10n.t('Setting sdmaLens.profile.args must be a list of strings'));
  const env = config.get<unknown>('env') ?? {};
  if (
    typeof env !== 'object' ||
    env === null ||
    Array.isArray(env) ||
    !Object.entries(env).every(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof v === 'string')
  ) {
    throw new Error(vscode.l10n.t('Setting sdmaLens.profile.env must map variable names to strings'));
  }
  // An environment cannot carry NUL: the process would not start, with an error that names nothing.
  const withNul = Object.entries(env as Record<string, string>).find(([, v]) => v.includes('\0'));
  if (withNul)
    throw new Error(
      vscode.l10n.t('Setting sdmaLens.profile.env: the value of {0} contains a NUL character', withNul[0]),
    );
  const root = folder.uri.fsPath;
  const cwd = substitute(checkedString(config.get('cwd'), 'cwd') ?? root, root);
  const resolved = substitute(program, root);
  return {
    program: path.isAbsolute(resolved) ? resolved : path.resolve(cwd, resolved),
    args: (args as string[]).map((a) => substitute(a, root)),
    cwd: path.isAbsolute(cwd) ? cwd : path.resolve(root, cwd),
    env: env as Record<string, string>,
  };
}

/** The settings that say what Profile runs, where, and with which environment. */
const RUN_SETTINGS = ['program', 'args', 'cwd', 'env'] as const;

/**
 * What the workspace's settings chose of Profile's program, arguments, working folder and
 * environment (nothing for values from the user's settings or the defaults): these are
 * confirmed before they run. `written`: values about to be in this folder's settings file
 * (`programSettingValues`), counted as if they were there already.
 */
export function profileWorkspaceEntries(
  folder: vscode.WorkspaceFolder,
  written?: readonly [string, unknown][],
): ConsentEntry[] {
  const config = vscode.workspace.getConfiguration('sdmaLens.profile', folder.uri);
  const pending = new Map(written ?? []);
  // A single-folder window reads the folder's .vscode/settings.json as the workspace's settings.
  const level = vscode.workspace.workspaceFile === undefined ? 'workspaceValue' : 'workspaceFolderValue';
  return RUN_SETTINGS.flatMap((name) => {
    const setting = `sdmaLens.profile.${name}`;
    const seen = config.inspect<unknown>(name);
    const counted = pending.has(setting) ? { ...seen, [level]: pending.get(setting) } : seen;
    return workspaceEntries(setting, counted, { object: name === 'env' });
  });
}

/** `sdmaLens.profile.libraryLog`: whether Profile asks the helper for the library's per-call log (`--library-log`). */
export function libraryLogFromSettings(folder: vscode.WorkspaceFolder): boolean {
  const value = vscode.workspace.getConfiguration('sdmaLens.profile', folder.uri).get<unknown>('libraryLog') ?? false;
  if (typeof value !== 'boolean')
    throw new Error(vscode.l10n.t('Setting sdmaLens.profile.libraryLog must be true or false'));
  return value;
}

/** `sdmaLens.profile.spanRecords`: how many device-trace spans Profile keeps (`--span-records`). */
export function spanRecordsFromSettings(folder: vscode.WorkspaceFolder): number {
  const value =
    vscode.workspace.getConfiguration('sdmaLens.profile', folder.uri).get<unknown>('spanRecords') ?? 200_000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 2 ** 26) {
    throw new SettingError(
      'profile.spanRecords',
      vscode.l10n.t('must be a whole number from 0 to {0}, not {1}', 2 ** 26, JSON.stringify(value)),
    );
  }
  return value;
}

/** Asks what to run: a file, a process task, or the CMake launch target. */
export async function askForProgram(folder: vscode.WorkspaceFolder): Promise<ProgramSpec | undefined> {
  type Choice = vscode.QuickPickItem & { pick: () => Promise<ProgramSpec | undefined> };
  const root = folder.uri.fsPath;
  const choices: Choice[] = [
    {
      label: vscode.l10n.t('$(file-binary) Choose the program…'),
      detail: vscode.l10n.t('A built executable that launches your kernels'),
      pick: async () => {
        const uri = (
          await vscode.window.showOpenDialog({
            defaultUri: folder.uri,
            canSelectMany: false,
            openLabel: vscode.l10n.t('Profile this program'),
          })
        )?.[0];
        return uri ? { program: uri.fsPath, args: [], cwd: root, env: {} } : undefined;
      },
    },
  ];
  const tasks = (await vscode.tasks.fetchTasks()).filter((t) => t.execution instanceof vscode.ProcessExecution);
  if (tasks.length > 0) {
    choices.push({
      label: vscode.l10n.t('$(tasklist) Use a task…'),
      detail:
        tasks.length === 1
          ? vscode.l10n.t('1 process task in this workspace')
          : vscode.l10n.t('{0} process tasks in this workspace', tasks.length),
      pick: async () => {
        const task = (
          await vscode.window.showQuickPick(
            tasks.map((t) => ({ label: t.name, task: t })),
            { title: vscode.l10n.t('Profile the program of which task?') },
          )
        )?.task;
        const exec = task?.execution as vscode.ProcessExecution | undefined;
        if (!exec) return undefined;
        return {
          program: substitute(exec.process, root),
          args: exec.args.map((a) => substitute(a, root)),
          cwd: substitute(exec.options?.cwd ?? root, root),
          env: exec.options?.env ?? {},
        };
      },
    });
  }
  if (vscode.extensions.getExtension(CMAKE_TOOLS)) {
    choices.push({
      label: vscode.l10n.t('$(tools) Use the CMake launch target'),
      detail: vscode.l10n.t('The target CMake Tools would launch'),
      pick: async () => {
        const target = await vscode.commands.executeCommand<string | undefined>('cmake.launchTargetPath');
        return target ? { program: target, args: [], cwd: path.dirname(target), env: {} } : undefined;
      },
    });
  }
  const choice = await vscode.window.showQuickPick(choices, {
    title: vscode.l10n.t('SDMA Lens: what should Profile run?'),
    placeHolder: vscode.l10n.t("Asked once; the answer goes into this workspace's settings"),
  });
  return choice?.pick();
}

/** The settings `rememberProgram` writes for `spec`: paths inside the folder as `${workspaceFolder}/...`. */
export function programSettingValues(spec: ProgramSpec, folder: vscode.WorkspaceFolder): [string, unknown][] {
  const root = folder.uri.fsPath;
  const relative = (p: string) => (p.startsWith(root + path.sep) ? `\${workspaceFolder}/${path.relative(root, p)}` : p);
  return [
    ['sdmaLens.profile.program', relative(spec.program)],
    ['sdmaLens.profile.args', spec.args],
    ['sdmaLens.profile.cwd', relative(spec.cwd)],
    ['sdmaLens.profile.env', spec.env],
  ];
}

/** Writes the program into .vscode/settings.json as an unsaved edit the user reviews and saves. */
export async function rememberProgram(spec: ProgramSpec, folder: vscode.WorkspaceFolder): Promise<boolean> {
  const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
  // No settings file yet: the edit starts an untitled one at its path.
  const text = (await openKnobFile(uri))?.getText() ?? '';
  const format = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };
  let next = text.trim() ? text : '{}\n';
  for (const [key, value] of programSettingValues(spec, folder))
    next = applyEdits(next, modify(next, [key], value, format));
  return reviewableEdit(
    uri,
    [{ offset: 0, length: text.length, text: next }],
    vscode.l10n.t('the program to profile is set'),
  );
}
