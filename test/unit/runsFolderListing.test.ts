/**
 * A runs folder is a setting, and a workspace may point it at `.` or `..`: the Runs view and
 * `sdma-lens runs` list only runs (folders, not links, holding a run.ndjson), never `.git`,
 * `src` or a link to a run folder elsewhere, so none of those is offered for deletion.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { runCli } from '../support/cli';
import { done, header, hello } from '../support/records';

let root = '';
let elsewhere = '';

// The Runs view in a stand-in VS Code: only what the tree provider touches.
vi.mock('vscode', () => {
  class TreeItem {
    description?: string;
    tooltip?: unknown;
    iconPath?: unknown;
    contextValue?: string;
    id?: string;
    command?: unknown;
    constructor(
      readonly label: string,
      readonly collapsibleState: number,
    ) {}
  }
  class EventEmitter {
    event = () => ({ dispose() {} });
    fire() {}
    dispose() {}
  }
  const fill = (message: string, ...args: unknown[]) =>
    message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
  return {
    TreeItem,
    EventEmitter,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
    MarkdownString: class {
      constructor(readonly value: string) {}
    },
    RelativePattern: class {},
    Uri: { file: (fsPath: string) => ({ fsPath, scheme: 'file' }) },
    l10n: {
      t: (m: string | { message: string; args: unknown[] }, ...args: unknown[]) =>
        typeof m === 'string' ? fill(m, ...args) : fill(m.message, ...m.args),
    },
    workspace: {
      onDidChangeConfiguration: () => ({ dispose() {} }),
      createFileSystemWatcher: () => ({ onDidCreate() {}, onDidChange() {}, onDidDelete() {}, dispose() {} }),
    },
  };
});
vi.mock('../../src/extension/settings', () => ({ runsFolder: () => root }));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sdma-listing-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
});

/** A workspace whose runs folder setting is `.`: its sources, its git folder, a run, and more. */
function workspaceAsRunsFolder(): void {
  const store = new RunStore(root);
  const w = store.create(header('2026-11-30T01-00-00-000Z-sweep-sim-aaaa'));
  w.appendValue(hello);
  w.appendValue(done);
  w.close();
  // A folder with a damaged run file is still a run (corrupt): it holds a run.ndjson.
  mkdirSync(join(root, 'damaged'));
  writeFileSync(join(root, 'damaged', 'run.ndjson'), 'not a header\n');
  for (const d of ['.git', 'src', '.ssh', 'node_modules']) {
    mkdirSync(join(root, d, 'inner'), { recursive: true });
    writeFileSync(join(root, d, 'file.txt'), "the user's\n");
  }
  // A link to a run folder elsewhere: not a run of this folder, never followed.
  elsewhere = mkdtempSync(join(tmpdir(), 'sdma-elsewhere-'));
  const other = new RunStore(elsewhere).create(header('linked'));
  other.close();
  symlinkSync(join(elsewhere, 'linked'), join(root, 'linked'));
}

describe('the runs of a runs folder that is a whole workspace', () => {
  it('RunStore.list lists the run and the damaged run, not .git, src, .ssh, node_modules or a linked run folder', async () => {
    workspaceAsRunsFolder();
    const list = await new RunStore(root).list();
    expect(list.map((s) => [s.id, s.status])).toEqual([
      ['damaged', 'corrupt'],
      ['2026-11-30T01-00-00-000Z-sweep-sim-aaaa', 'ok'],
    ]);
  });

  it('the Runs view shows the same: no group of "unreadable runs" made of folders that are not runs', async () => {
    workspaceAsRunsFolder();
    const { RunsViewProvider } = await import('../../src/extension/runsView');
    const view = new RunsViewProvider({ fsPath: root } as never);
    const ids: string[] = [];
    const stack = [...(await view.getChildren())];
    while (stack.length > 0) {
      const node = stack.shift()!;
      if (node.kind === 'run') ids.push(node.summary.id);
      else stack.push(...(await view.getChildren(node)));
    }
    view.dispose();
    expect(ids.sort()).toEqual(['2026-11-30T01-00-00-000Z-sweep-sim-aaaa', 'damaged']);
  });

  it('sdma-lens runs prints the run and the damaged run only', async () => {
    workspaceAsRunsFolder();
    const r = await runCli(['runs', '--runs-dir', root]);
    expect(r.code).toBe(0);
    const ids = r.out
      .trim()
      .split('\n')
      .map((l) => l.split('  ')[0]);
    expect(ids).toEqual(['damaged', '2026-11-30T01-00-00-000Z-sweep-sim-aaaa']);
    const json = await runCli(['runs', '--runs-dir', root, '--json']);
    expect((JSON.parse(json.out) as { id: string }[]).map((s) => s.id)).toEqual([
      'damaged',
      '2026-11-30T01-00-00-000Z-sweep-sim-aaaa',
    ]);
  });
});
