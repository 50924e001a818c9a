/**
 * Reads `sdmaLens.*` settings. Values can be anything a settings.json holds, so each is
 * checked here and a bad one becomes a message that names the setting, never a helper argument.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkSlurmName } from '../core/fleetRun/slurm';
import type { AdviceOptions } from '../core/advice/advice';
import { DEFAULT_LOAD_STORE_CUS } from '../core/advice/advice';
import type { EndpointPair } from '../core/endpoints';
import type { CollectiveRunMode, PathName, ShmemSdma } from '../core/protocol';
import { COLLECTIVE_RUN_MODES, DEFAULT_COLLECTIVE_MODE, SHMEM_SDMA } from '../core/protocol';
import { LIMITS } from '../core/limits';
import { parseDestination } from '../core/ssh/destination';
import { STALL_LIMIT, checkStallTimeout } from '../core/runtime/session';
import type { SshSettings } from '../core/ssh/sshArgs';
import { DEFAULT_CONNECT_TIMEOUT_S, CONNECT_TIMEOUT_RANGE_S, checkExtraArgs } from '../core/ssh/sshArgs';
import type { BackendChoice } from '../core/backendChoice';
import type { SweepOptions } from '../core/sweep/sweepOptions';
import { DEFAULT_SWEEP, checkSweepOptions, readEndpoints } from '../core/sweep/sweepOptions';
import { parseSize } from '../core/units';
import type { ConsentEntry, InspectedValue } from './workspaceConsent';
import { workspaceEntries } from './workspaceConsent';

export const SECTION = 'sdmaLens';

export class SettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(vscode.l10n.t('Setting {0}: {1}', `${SECTION}.${setting}`, message));
  }
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function field<T>(name: string, read: (value: unknown) => T): T {
  try {
    return read(config().get<unknown>(name));
  } catch (err) {
    throw new SettingError(name, (err as Error).message);
  }
}

/**
 * Like `field`, but undefined unless the user set the value somewhere: VS Code answers `get`
 * for a setting without a declared default with its type's empty value (0 for an integer),
 * which must not be mistaken for a choice (the deprecated GPU index settings).
 */
function userField<T>(name: string, read: (value: unknown) => T): T {
  const seen = config().inspect<unknown>(name);
  const value = seen?.workspaceFolderValue ?? seen?.workspaceValue ?? seen?.globalValue;
  try {
    return read(value);
  } catch (err) {
    throw new SettingError(name, (err as Error).message);
  }
}

/** Where a warning goes: the extension's log channel. */
export interface SettingsLog {
  warn(message: string): void;
}

/**
 * The value of a setting that names a program the extension runs, or how ssh is called: the
 * user's (global) value, else the default. A workspace value is never used, even where VS Code
 * would apply it (these settings are machine-scoped, so it should not).
 */
export function fromUserSettingsOnly(seen: InspectedValue | undefined): {
  value: unknown;
  ignoredWorkspaceValue: boolean;
} {
  return {
    value: seen?.globalValue !== undefined ? seen.globalValue : seen?.defaultValue,
    ignoredWorkspaceValue: seen?.workspaceValue !== undefined || seen?.workspaceFolderValue !== undefined,
  };
}

const warnedIgnored = new Set<string>();

/** `field` for a machine setting: only the user's value is read; a workspace value is logged once and ignored. */
function machineField<T>(name: string, read: (value: unknown) => T, log?: SettingsLog): T {
  const { value, ignoredWorkspaceValue } = fromUserSettingsOnly(config().inspect<unknown>(name));
  if (ignoredWorkspaceValue && !warnedIgnored.has(name)) {
    warnedIgnored.add(name);
    log?.warn(
      `${SECTION}.${name}: the value in this workspace's settings is ignored; this setting is read from user settings only`,
    );
  }
  try {
    return read(value);
  } catch (err) {
    throw new SettingError(name, (err as Error).message);
  }
}

const isStringArray = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
const isNumberArray = (x: unknown): x is number[] => Array.isArray(x) && x.every((s) => typeof s === 'number');

/** `sdmaLens.helperPath`: the local helper; read from user settings only. */
export function helperPathSetting(log?: SettingsLog): string {
  return machineField(
    'helperPath',
    (x) => {
      if (x === undefined || x === null || x === '') return '';
      if (typeof x !== 'string') throw new Error(vscode.l10n.t('must be a path string'));
      if (x.includes('\0') || x.includes('\n')) throw new Error(vscode.l10n.t('contains a control character'));
      if (!path.isAbsolute(x)) throw new Error(vscode.l10n.t('must be an absolute path (got "{0}")', x));
      return x;
    },
    log,
  );
}

/** `sdmaLens.codeLens.enabled`: the Profile lens and the facts above each `__global__` kernel (per folder: resource scope). */
export function codeLensSettings(scope?: vscode.Uri): { enabled: boolean } {
  const x = vscode.workspace.getConfiguration('sdmaLens.codeLens', scope).get<unknown>('enabled');
  return { enabled: x !== false };
}

/** `sdmaLens.statusBar.visible`: the target item in the status bar. */
export function statusBarVisible(): boolean {
  return vscode.workspace.getConfiguration('sdmaLens.statusBar').get<unknown>('visible') !== false;
}

/** `sdmaLens.run.stallTimeoutSeconds`: seconds the helper may print nothing before it is stopped (0: no limit). */
export function stallTimeoutSetting(): number {
  return field('run.stallTimeoutSeconds', (x) =>
    x === undefined || x === null ? STALL_LIMIT.defaultS : checkStallTimeout(x),
  );
}

/** `sdmaLens.fleet.*`: the partition a new allocation comes from ("" = Slurm's default), the node count offered, nodes measured at once. */
export function fleetSettings(): { partition: string | undefined; nodes: number; parallel: number } {
  const whole = (min: number, max: number, fallback: number) => (x: unknown) => {
    if (x === undefined || x === null) return fallback;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max)
      throw new Error(vscode.l10n.t('must be a whole number in {0}..{1}', min, max));
    return x;
  };
  return {
    partition: field('fleet.partition', (x) => {
      if (x === undefined || x === null || x === '') return undefined;
      if (typeof x !== 'string') throw new Error(vscode.l10n.t('must be a partition name, or empty for the default'));
      return checkSlurmName('partition', x);
    }),
    nodes: field('fleet.nodes', whole(1, 100_000, 2)),
    parallel: field('fleet.parallel', whole(1, 1024, 64)),
  };
}

/** The folder runs are saved in: absolute, or relative to the first workspace folder, else the extension's storage. */
export function runsFolder(storage: vscode.Uri): string {
  const value = field('runsFolder', (x) => {
    if (x === undefined || x === '') return '.sdma-lens/runs';
    if (typeof x !== 'string' || x.includes('\0') || x.includes('\n'))
      throw new Error(vscode.l10n.t('must be a folder path'));
    return x;
  });
  if (path.isAbsolute(value)) return value;
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder && folder.uri.scheme === 'file') return path.resolve(folder.uri.fsPath, value);
  return path.join(storage.fsPath, 'runs');
}

/** The sweep the settings describe; the quick pick adjusts it before a run. */
export function sweepSettings(): SweepOptions {
  const options: SweepOptions = {
    backend: field('defaultBackend', (x) => (x ?? DEFAULT_SWEEP.backend) as BackendChoice),
    sizes: field('sweep.sizes', (x) => {
      if (x === undefined) return DEFAULT_SWEEP.sizes;
      if (!isStringArray(x)) throw new Error(vscode.l10n.t('must be a list of sizes such as "4K", "1M"'));
      return [...new Set(x.map(parseSize))].sort((a, b) => a - b);
    }),
    paths: field('sweep.paths', (x) => {
      if (x === undefined) return DEFAULT_SWEEP.paths;
      if (!isStringArray(x)) throw new Error(vscode.l10n.t('must be a list of paths'));
      return x as PathName[];
    }),
    cus: field('sweep.cuCounts', (x) => {
      if (x === undefined) return DEFAULT_SWEEP.cus;
      if (!isNumberArray(x)) throw new Error(vscode.l10n.t('must be a list of whole numbers'));
      return [...new Set(x)].sort((a, b) => a - b);
    }),
    iters: field('sweep.iterations', (x) => (x === undefined ? DEFAULT_SWEEP.iters : (x as number))),
    seed: DEFAULT_SWEEP.seed,
    pairs: endpointsSetting(),
  };
  const timeline = field('sweep.timelineSize', (x) => {
    if (x === undefined || x === '') return undefined;
    if (typeof x !== 'string') throw new Error(vscode.l10n.t('must be a size such as "1M", or empty for none'));
    return parseSize(x);
  });
  if (timeline !== undefined) options.timelineSizeBytes = timeline;
  if (field('sweep.runtimeDefault', (x) => x === true)) options.runtimeDefault = true;
  // The seed's dimensions: each list as the helper takes it; the default (or an unset value) passes no flag.
  const ints = (name: string, fallback: number[]) =>
    field(name, (x) => {
      if (x === undefined || x === null) return fallback;
      if (!isNumberArray(x)) throw new Error(vscode.l10n.t('must be a list of whole numbers'));
      return [...new Set(x)].sort((a, b) => a - b);
    });
  const waves = ints('sweep.wavesPerCu', []);
  if (waves.length > 0) options.wavesPerCu = waves;
  options.engines = ints('sweep.engines', [1]);
  options.batch = ints('sweep.batch', [0]);
  options.shmemSdma = field('sweep.shmemSdma', (x) => {
    if (x === undefined || x === null) return ['forced'];
    if (!isStringArray(x) || x.some((m) => !(SHMEM_SDMA as readonly string[]).includes(m)))
      throw new Error(vscode.l10n.t('must be a list of rocSHMEM SDMA modes: {0}', SHMEM_SDMA.join(', ')));
    return [...new Set(x)] as ShmemSdma[];
  });
  try {
    return checkSweepOptions(options);
  } catch (err) {
    throw new SettingError('sweep', (err as Error).message);
  }
}

/**
 * `sdmaLens.sweep.endpoints`: `SRC:DST` strings (a GPU index or `host` each side); empty: the
 * node's default. The deprecated `sweep.srcGpu`/`sweep.dstGpu` are still read when set and the
 * new setting is not.
 */
export function endpointsSetting(): EndpointPair[] {
  const pairs = field('sweep.endpoints', (x) => readEndpoints(x));
  if (pairs.length > 0) return pairs;
  const src = userField('sweep.srcGpu', (x) => readGpu(x));
  const dst = userField('sweep.dstGpu', (x) => readGpu(x));
  if (src === undefined && dst === undefined) return [];
  const pair = { src: src ?? 0, dst: dst ?? (src === 1 ? 0 : 1) };
  return [pair];
}

function readGpu(x: unknown): number | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 1023)
    throw new Error(vscode.l10n.t('must be a GPU index in 0..1023 (deprecated: use sdmaLens.sweep.endpoints)'));
  return x;
}

/**
 * `sdmaLens.collective.mode`: how "Run Collective Sweep" lays out its ranks, passed to the
 * helper as `--mode`. Only the two modes the helper takes; anything else (another word, a
 * flag-like value, a non-string) is refused with a message naming the setting.
 */
export function collectiveSettings(): { mode: CollectiveRunMode } {
  return {
    mode: field('collective.mode', (x) => {
      if (x === undefined || x === null) return DEFAULT_COLLECTIVE_MODE;
      if (typeof x !== 'string' || !(COLLECTIVE_RUN_MODES as readonly string[]).includes(x))
        throw new Error(
          vscode.l10n.t(
            'must be one of {0} (got {1})',
            COLLECTIVE_RUN_MODES.join(', '),
            JSON.stringify(x)?.slice(0, 80) ?? String(x),
          ),
        );
      return x as CollectiveRunMode;
    }),
  };
}

/** `sdmaLens.advice.*`: what the advice assumes about the user's library and message sizes. */
export function adviceSettings(): AdviceOptions {
  const version = (name: string) =>
    field(name, (x) => {
      if (x === undefined || x === '') return undefined;
      if (typeof x !== 'string' || !/^\d+(\.\d+)*/.test(x) || x.length > 64)
        throw new Error(vscode.l10n.t('must be a version such as 2.31.0'));
      return x.trim();
    });
  const libraries: AdviceOptions['libraries'] = {};
  const rccl = version('advice.rcclVersion');
  const rocshmem = version('advice.rocshmemVersion');
  const nccl = version('advice.ncclVersion');
  if (rccl) libraries.rccl = rccl;
  if (rocshmem) libraries.rocshmem = rocshmem;
  if (nccl) libraries.nccl = nccl;
  return {
    loadStoreCus: field('advice.loadStoreCus', (x) => {
      if (x === undefined) return DEFAULT_LOAD_STORE_CUS;
      if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > 4096)
        throw new Error(vscode.l10n.t('must be a whole number in 1..4096'));
      return x;
    }),
    wavesPerCu: field('advice.wavesPerCu', (x) => {
      if (x === undefined || x === null) return 0;
      if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > LIMITS.wavesPerCuMax)
        throw new Error(
          vscode.l10n.t('must be 0 (the default threads) or a whole number in 1..{0}', LIMITS.wavesPerCuMax),
        );
      return x;
    }),
    messageSizes: field('advice.messageSizes', (x) => {
      if (x === undefined) return [];
      if (!isStringArray(x)) throw new Error(vscode.l10n.t('must be a list of sizes such as "64K", "1M"'));
      return x.map(parseSize);
    }),
    libraries,
  };
}

/** `sdmaLens.target`: "local", or an SSH destination (`user@host[:port]` or a ~/.ssh/config alias). */
export function targetSetting(): string {
  return field('target', (x) => {
    if (x === undefined || x === null || x === '' || x === 'local') return 'local';
    if (typeof x !== 'string')
      throw new Error(vscode.l10n.t('must be "local" or an SSH destination such as user@gpu-node-3'));
    parseDestination(x.trim());
    return x.trim();
  });
}

/**
 * What the workspace's settings chose of `sdmaLens.target` (nothing when the value is the
 * user's or the default): such a target is confirmed before anything connects to it.
 */
export function targetWorkspaceEntries(): ConsentEntry[] {
  return workspaceEntries(`${SECTION}.target`, config().inspect<unknown>('target'));
}

/** `sdmaLens.ssh.*`: how the system ssh client is called. Machine-scoped and read from user settings only. */
export function sshSettings(log?: SettingsLog): SshSettings {
  return {
    connectTimeoutSeconds: machineField(
      'ssh.connectTimeoutSeconds',
      (x) => {
        if (x === undefined || x === null) return DEFAULT_CONNECT_TIMEOUT_S;
        const [least, most] = CONNECT_TIMEOUT_RANGE_S;
        if (typeof x !== 'number' || !Number.isInteger(x) || x < least || x > most)
          throw new Error(vscode.l10n.t('must be a whole number of seconds in {0}..{1}', least, most));
        return x;
      },
      log,
    ),
    extraArgs: machineField(
      'ssh.extraArgs',
      (x) => {
        if (x === undefined || x === null) return [];
        if (!Array.isArray(x)) throw new Error(vscode.l10n.t('must be a list of ssh options, e.g. ["-J", "bastion"]'));
        return checkExtraArgs(x);
      },
      log,
    ),
  };
}

/** `sdmaLens.ssh.helperPath`: an sdma-probe already on the node (absolute path there), or empty; read from user settings only. */
export function sshHelperPathSetting(log?: SettingsLog): string {
  return machineField(
    'ssh.helperPath',
    (x) => {
      if (x === undefined || x === null || x === '') return '';
      if (typeof x !== 'string') throw new Error(vscode.l10n.t('must be a path string'));
      if (/[\0\r\n]/.test(x)) throw new Error(vscode.l10n.t('contains a control character'));
      if (!x.startsWith('/')) throw new Error(vscode.l10n.t('must be an absolute path on the node (got "{0}")', x));
      return x;
    },
    log,
  );
}
