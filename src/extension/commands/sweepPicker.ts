/**
 * The quick pick shown before a sweep: the settings' sweep as one "Run" item, plus items
 * that adjust paths, CU counts, sizes and backend for this run only. Returns undefined
 * when the user dismisses it.
 */
import * as vscode from 'vscode';
import type { PathName } from '../../core/protocol';
import { PATHS } from '../../core/protocol';
import type { SweepOptions } from '../../core/sweepOptions';
import { BACKEND_CHOICES, checkSweepOptions } from '../../core/sweepOptions';
import { formatBytes, formatSizeArg, parseSizeList } from '../../core/units';

type Action = 'run' | 'paths' | 'cus' | 'sizes' | 'backend' | 'iters';

interface ActionItem extends vscode.QuickPickItem {
  action: Action;
}

function describe(o: SweepOptions): ActionItem[] {
  const sizes = `${o.sizes.length} sizes, ${formatBytes(o.sizes[0]!)} to ${formatBytes(o.sizes.at(-1)!)}`;
  return [
    { action: 'run', label: '$(play) Run sweep', detail: `${o.paths.join(', ')} · ${sizes} · CUs ${o.cus.join(',')} · ${o.iters} iterations · GPU ${o.src} -> ${o.dst} · backend ${o.backend}` },
    { action: 'paths', label: '$(list-selection) Paths', description: o.paths.join(', ') },
    { action: 'cus', label: '$(chip) CU counts', description: o.cus.join(', ') },
    { action: 'sizes', label: '$(symbol-ruler) Message sizes', description: sizes },
    { action: 'backend', label: '$(server) Backend', description: o.backend },
    { action: 'iters', label: '$(sync) Iterations', description: String(o.iters) },
  ];
}

export async function pickSweep(initial: SweepOptions): Promise<SweepOptions | undefined> {
  let options = { ...initial };
  for (;;) {
    const choice = await vscode.window.showQuickPick(describe(options), {
      title: 'SDMA Lens: Run Transfer Sweep',
      placeHolder: 'Run with these settings, or adjust them for this run',
    });
    if (!choice) return undefined;
    switch (choice.action) {
      case 'run':
        return options;
      case 'paths': {
        const picked = await vscode.window.showQuickPick(
          PATHS.map((p) => ({ label: p, picked: options.paths.includes(p) })),
          { title: 'Paths to sweep (mover/initiator)', canPickMany: true },
        );
        if (picked && picked.length > 0) options = { ...options, paths: picked.map((p) => p.label as PathName) };
        break;
      }
      case 'cus': {
        const text = await vscode.window.showInputBox({
          title: 'CU counts for the cu/* paths',
          value: options.cus.join(','),
          validateInput: (t) => tryCheck(() => ({ ...options, cus: parseInts(t) })),
        });
        if (text !== undefined) options = { ...options, cus: parseInts(text) };
        break;
      }
      case 'sizes': {
        const text = await vscode.window.showInputBox({
          title: 'Message sizes (comma separated, e.g. 4K,64K,1M,1G)',
          value: options.sizes.map(formatSizeArg).join(','),
          validateInput: (t) => tryCheck(() => ({ ...options, sizes: parseSizeList(t) })),
        });
        if (text !== undefined) options = { ...options, sizes: parseSizeList(text) };
        break;
      }
      case 'backend': {
        const picked = await vscode.window.showQuickPick(
          BACKEND_CHOICES.map((b) => ({ label: b, description: b === 'sim' ? 'simulated MI350X node' : b === 'auto' ? 'real GPUs when present, else simulated' : undefined })),
          { title: 'Helper backend' },
        );
        if (picked) options = { ...options, backend: picked.label };
        break;
      }
      case 'iters': {
        const text = await vscode.window.showInputBox({
          title: 'Timed iterations per point',
          value: String(options.iters),
          validateInput: (t) => tryCheck(() => ({ ...options, iters: Number(t) })),
        });
        if (text !== undefined) options = { ...options, iters: Number(text) };
        break;
      }
    }
  }
}

function parseInts(text: string): number[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
}

function tryCheck(make: () => SweepOptions): string | undefined {
  try {
    checkSweepOptions(make());
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
