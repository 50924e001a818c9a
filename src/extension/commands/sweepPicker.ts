/**
 * The quick pick shown before a sweep: the settings' sweep as one "Run" item, plus items
 * that adjust paths, CU counts, sizes and backend for this run only. Returns undefined
 * when the user dismisses it.
 */
import * as vscode from 'vscode';
import type { EndpointPair } from '../../core/endpoints';
import { pairArg, pairName, parsePairList, samePair } from '../../core/endpoints';
import { endpointsText, nodeDefaultPairs, nodePairs } from '../../core/runtime/nodeInfo';
import type { PathName, Topology } from '../../core/protocol';
import { PATHS } from '../../core/protocol';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { BACKEND_CHOICES } from '../../core/backendChoice';
import { checkSweepOptions } from '../../core/sweep/sweepOptions';
import { durationWords, estimateSweep } from '../../core/sweep/sweepEstimate';
import { LIMITS } from '../../core/limits';
import { parseSizeList } from '../../core/sizeList';
import { formatBytes, formatSizeArg } from '../../core/units';

type Action = 'run' | 'endpoints' | 'paths' | 'cus' | 'waves' | 'sizes' | 'backend' | 'iters';

interface ActionItem extends vscode.QuickPickItem {
  action: Action;
}

/** The node's default pair count where the options name none (1 where the node is not known). */
function defaultPairCount(topology?: Topology): number {
  return topology && topology.gpus.length > 0 ? nodeDefaultPairs(topology).length : 1;
}

/** "1,4,16" or "default (1024 threads)": the waves per CU in the pick. */
function wavesText(o: SweepOptions): string {
  return o.wavesPerCu && o.wavesPerCu.length > 0 ? o.wavesPerCu.join(',') : vscode.l10n.t('default (1024 threads)');
}

/** "{points} points, about {time}": the sweep's size before it starts (core/sweep/sweepEstimate.ts). */
function sizeText(o: SweepOptions, topology?: Topology): string {
  const e = estimateSweep(o, defaultPairCount(topology));
  return vscode.l10n.t('{0} points, about {1}', e.points, durationWords(e.ms));
}

function describe(o: SweepOptions, topology?: Topology): ActionItem[] {
  const sizes = vscode.l10n.t(
    '{0} sizes, {1} to {2}',
    o.sizes.length,
    formatBytes(o.sizes[0]!),
    formatBytes(o.sizes.at(-1)!),
  );
  // The node's endpoints are worded by the core (shared with the CLI).
  const endpoints = endpointsText(o.pairs, topology);
  return [
    {
      action: 'run',
      label: vscode.l10n.t('$(play) Run sweep'),
      description: sizeText(o, topology),
      detail: vscode.l10n.t(
        '{0} · {1} · {2} · CUs {3} · waves/CU {4} · {5} iterations · backend {6}',
        endpoints,
        o.paths.join(', '),
        sizes,
        o.cus.join(','),
        wavesText(o),
        o.iters,
        o.backend,
      ),
    },
    { action: 'endpoints', label: vscode.l10n.t('$(arrow-swap) Endpoints'), description: endpoints },
    { action: 'paths', label: vscode.l10n.t('$(list-selection) Paths'), description: o.paths.join(', ') },
    { action: 'cus', label: vscode.l10n.t('$(chip) CU counts'), description: o.cus.join(', ') },
    { action: 'waves', label: vscode.l10n.t('$(layers) Waves per CU'), description: wavesText(o) },
    { action: 'sizes', label: vscode.l10n.t('$(symbol-ruler) Message sizes'), description: sizes },
    { action: 'backend', label: vscode.l10n.t('$(server) Backend'), description: o.backend },
    { action: 'iters', label: vscode.l10n.t('$(sync) Iterations'), description: String(o.iters) },
  ];
}

/**
 * `topology`: the node from the helper's `info`, whose endpoints are offered; without it,
 * endpoints are typed. `signal`: the run's cancel, which closes whatever is open.
 */
export async function pickSweep(
  initial: SweepOptions,
  topology?: Topology,
  signal?: AbortSignal,
): Promise<SweepOptions | undefined> {
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  if (signal?.aborted) cancel.cancel();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await pickLoop(initial, topology, cancel.token);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}

async function pickLoop(
  initial: SweepOptions,
  topology: Topology | undefined,
  token: vscode.CancellationToken,
): Promise<SweepOptions | undefined> {
  let options = { ...initial };
  for (;;) {
    if (token.isCancellationRequested) return undefined;
    const choice = await vscode.window.showQuickPick(
      describe(options, topology),
      {
        title: vscode.l10n.t('SDMA Lens: Run Transfer Sweep'),
        placeHolder: vscode.l10n.t('Run with these settings, or adjust them for this run'),
      },
      token,
    );
    if (!choice) return undefined;
    switch (choice.action) {
      case 'run':
        if (await confirmLarge(options, topology)) return options;
        break;
      case 'endpoints': {
        const pairs = await pickEndpoints(options, topology, token);
        if (pairs) options = { ...options, pairs };
        break;
      }
      case 'paths': {
        const picked = await vscode.window.showQuickPick(
          PATHS.map((p) => ({ label: p, picked: options.paths.includes(p) })),
          { title: vscode.l10n.t('Paths to sweep (mover/initiator)'), canPickMany: true },
          token,
        );
        if (picked && picked.length > 0) options = { ...options, paths: picked.map((p) => p.label as PathName) };
        break;
      }
      case 'cus': {
        const text = await vscode.window.showInputBox(
          {
            title: vscode.l10n.t('CU counts for the cu/* paths'),
            value: options.cus.join(','),
            validateInput: (t) => tryCheck(() => ({ ...options, cus: parseInts(t) })),
          },
          token,
        );
        if (text !== undefined) options = { ...options, cus: parseInts(text) };
        break;
      }
      case 'waves': {
        const text = await vscode.window.showInputBox(
          {
            title: vscode.l10n.t(
              'Wavefronts per CU (comma separated, 1..{0}; empty: the default 1024 threads)',
              LIMITS.wavesPerCuMax,
            ),
            value: (options.wavesPerCu ?? []).join(','),
            validateInput: (t) => tryCheck(() => ({ ...options, wavesPerCu: parseInts(t) })),
          },
          token,
        );
        if (text !== undefined) {
          const waves = parseInts(text);
          const { wavesPerCu: _dropped, ...rest } = options;
          options = waves.length > 0 ? { ...rest, wavesPerCu: waves } : rest;
        }
        break;
      }
      case 'sizes': {
        const text = await vscode.window.showInputBox(
          {
            title: vscode.l10n.t('Message sizes (comma separated, e.g. 4K,64K,1M,1G)'),
            value: options.sizes.map(formatSizeArg).join(','),
            validateInput: (t) => tryCheck(() => ({ ...options, sizes: parseSizeList(t) })),
          },
          token,
        );
        if (text !== undefined) options = { ...options, sizes: parseSizeList(text) };
        break;
      }
      case 'backend': {
        const picked = await vscode.window.showQuickPick(
          BACKEND_CHOICES.map((b) => ({
            label: b,
            description:
              b === 'sim'
                ? vscode.l10n.t('simulated MI350X node')
                : b === 'auto'
                  ? vscode.l10n.t('real GPUs when present, else simulated')
                  : undefined,
          })),
          { title: vscode.l10n.t('Helper backend') },
          token,
        );
        if (picked) options = { ...options, backend: picked.label };
        break;
      }
      case 'iters': {
        const text = await vscode.window.showInputBox(
          {
            title: vscode.l10n.t('Timed iterations per point'),
            value: String(options.iters),
            validateInput: (t) => tryCheck(() => ({ ...options, iters: Number(t) })),
          },
          token,
        );
        if (text !== undefined) options = { ...options, iters: Number(text) };
        break;
      }
    }
  }
}

/**
 * A sweep above CONFIRM_ABOVE (many waves x CUs x engines x sizes) is said before it starts, with
 * its points and estimated time; true to start it, false to go back to the pick.
 */
async function confirmLarge(options: SweepOptions, topology: Topology | undefined): Promise<boolean> {
  const e = estimateSweep(options, defaultPairCount(topology));
  if (!e.large) return true;
  const start = vscode.l10n.t('Start Sweep');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('This sweep measures {0} points, about {1}.', e.points, durationWords(e.ms)),
    {
      modal: true,
      detail: vscode.l10n.t(
        '{0} points per size and endpoint pair, {1} sizes, {2} endpoint pairs. The time is a rough estimate: (warm-up + iterations) x (20 µs + size at 50 GB/s) + 2 ms per point.',
        e.pointsPerSize,
        options.sizes.length,
        e.pairs,
      ),
    },
    start,
  );
  return answer === start;
}

interface PairItem extends vscode.QuickPickItem {
  pair: EndpointPair;
}

async function pickEndpoints(
  options: SweepOptions,
  topology: Topology | undefined,
  token: vscode.CancellationToken,
): Promise<EndpointPair[] | undefined> {
  if (!topology || topology.gpus.length === 0) {
    const text = await vscode.window.showInputBox(
      {
        title: vscode.l10n.t('Endpoint pairs (SRC:DST, comma separated; a GPU index or host; empty: the node default)'),
        value: options.pairs.map(pairArg).join(','),
        validateInput: (t) => (t.trim() === '' ? undefined : tryCheck(() => ({ ...options, pairs: parsePairList(t) }))),
      },
      token,
    );
    if (text === undefined) return undefined;
    return text.trim() === '' ? [] : parsePairList(text);
  }
  const defaults = nodeDefaultPairs(topology);
  const chosen = options.pairs.length > 0 ? options.pairs : defaults;
  const items: PairItem[] = nodePairs(topology).map((pair) => ({
    pair,
    label: pairName(pair),
    description: defaults.some((d) => samePair(d, pair))
      ? vscode.l10n.t('{0} · node default', pairArg(pair))
      : pairArg(pair),
    picked: chosen.some((c) => samePair(c, pair)),
  }));
  const picked = await vscode.window.showQuickPick(
    items,
    {
      title:
        topology.gpus.length === 1
          ? vscode.l10n.t('Endpoints to sweep on {0} (1 GPU; host = pinned host memory)', topology.node.model)
          : vscode.l10n.t(
              'Endpoints to sweep on {0} ({1} GPUs; host = pinned host memory)',
              topology.node.model,
              topology.gpus.length,
            ),
      canPickMany: true,
    },
    token,
  );
  if (!picked || picked.length === 0) return undefined;
  const pairs = picked.map((p) => p.pair);
  // The node's default picked as it is: leave it to the helper, as the setting's empty list does.
  const isDefault = pairs.length === defaults.length && pairs.every((p) => defaults.some((d) => samePair(d, p)));
  return isDefault && options.pairs.length === 0 ? [] : pairs;
}

function parseInts(text: string): number[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
}

function tryCheck(make: () => SweepOptions): string | undefined {
  try {
    checkSweepOptions(make());
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
