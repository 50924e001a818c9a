/** What the CLI's commands share in parsing their options: errors, numbers, lists, where runs go, the SSH target. */
import { statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEndpoint } from '../core/endpoints';
import { RunStore } from '../core/runs/runStore';
import { SshConnection } from '../core/ssh/connection';
import { parseDestination } from '../core/ssh/destination';
import type { SshSettings } from '../core/ssh/sshArgs';
import { STALL_LIMIT, checkStallTimeout } from '../core/runtime/session';
import { parseSizeList } from '../core/sizeList';
import { escapeControls } from '../core/text';
import { parseSize } from '../core/units';
import { CONNECT_TIMEOUT_RANGE_S, DEFAULT_CONNECT_TIMEOUT_S, checkExtraArgs } from '../core/ssh/sshArgs';

/** Bad arguments: exit 2, the message and where the command's help is. */
export class UsageError extends Error {}

export function int(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} needs a whole number (got "${text}")`);
  return Number(text);
}

export function list<T extends string>(flag: string, text: string | undefined, fallback: T[]): T[] {
  if (text === undefined) return fallback;
  const items = text.split(',').map((s) => s.trim());
  const empty = items.findIndex((s) => s === '');
  if (empty >= 0) {
    const where =
      empty === 0
        ? 'starts with a comma'
        : empty === items.length - 1
          ? 'ends with a comma'
          : 'has an empty item (two commas in a row)';
    throw new Error(`--${flag}: "${text}" ${where}; separate items with single commas`);
  }
  return items as T[];
}

/** `--FLAG SIZE`: one size (4096, 64K, 1M, 1G); the error names the flag. */
export function sizeOption(flag: string, text: string): number {
  return asUsage(() => withFlag(flag, () => parseSize(text)));
}

/** `--FLAG LIST`: sizes and ranges as the helper takes them (core/sizeList.ts), sorted, each once; the error names the flag. */
export function sizeListOption(flag: string, text: string): number[] {
  return asUsage(() => withFlag(flag, () => parseSizeList(text)));
}

function withFlag<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new Error(`--${flag}: ${(err as Error).message}`);
  }
}

/** Runs a check of the arguments; its error becomes a usage error. */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Options of every command that runs the helper: where, with which helper, how to report. */
export const RUN_OPTIONS = {
  json: { type: 'boolean', default: false },
  'runs-dir': { type: 'string' },
  helper: { type: 'string' },
  target: { type: 'string' },
  'ssh-config': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'stall-timeout': { type: 'string' },
} as const;

export interface RunValues {
  json?: boolean;
  'runs-dir'?: string;
  helper?: string;
  target?: string;
  'ssh-config'?: string;
  'connect-timeout'?: string;
  'stall-timeout'?: string;
}

/** `--stall-timeout S`: seconds the helper may print nothing before it is stopped (0: no limit). */
export function stallTimeout(values: RunValues): number {
  const s = int('stall-timeout', values['stall-timeout'], STALL_LIMIT.defaultS);
  return asUsage(() => {
    try {
      return checkStallTimeout(s);
    } catch (err) {
      throw new Error(`--stall-timeout ${(err as Error).message}`);
    }
  });
}

/**
 * `--helper PATH`: with --target a path on the node, which must be absolute (the node's working
 * folder is not this one); here, relative to this folder, and it must be a file.
 */
export function helperOption(values: RunValues, localOnly = false): string | undefined {
  const path = values.helper;
  if (path === undefined) return undefined;
  if (path === '' || escapeControls(path) !== path)
    throw new UsageError('--helper needs a path without control characters');
  if (values.target && values.target !== 'local' && !localOnly) {
    if (!path.startsWith('/'))
      throw new UsageError(`--helper with --target is a path on the node and must be absolute (got "${path}")`);
    return path;
  }
  const absolute = isAbsolute(path) ? path : resolve(process.cwd(), path);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    // said below
  }
  if (!isFile)
    throw new UsageError(
      `--helper: ${absolute} is not a file (build the helper with npm run build:native, or leave --helper out)`,
    );
  return absolute;
}

/** What the helper measures with: shared by the sweep and the matrix. */
export const MEASURE_OPTIONS = {
  backend: { type: 'string' },
  paths: { type: 'string' },
  cus: { type: 'string' },
  iters: { type: 'string' },
  seed: { type: 'string' },
  'sim-gpus': { type: 'string' },
  'sim-delay-ms': { type: 'string' },
  fault: { type: 'string' },
  'sim-weak': { type: 'string' },
} as const;

export function storeOf(values: { 'runs-dir'?: string }): RunStore {
  return new RunStore(values['runs-dir'] ?? join(process.cwd(), '.sdma-lens', 'runs'));
}

function connectTimeout(values: RunValues): number {
  const s = int('connect-timeout', values['connect-timeout'], DEFAULT_CONNECT_TIMEOUT_S);
  const [least, most] = CONNECT_TIMEOUT_RANGE_S;
  if (s < least || s > most)
    throw new UsageError(`--connect-timeout must be a whole number of seconds in ${least}..${most} (got ${s})`);
  return s;
}

/** `--target DEST` as an SSH connection; undefined for this machine. */
export function sshConnection(values: RunValues): SshConnection | undefined {
  if (!values.target || values.target === 'local') return undefined;
  const connectTimeoutSeconds = connectTimeout(values);
  try {
    const settings: SshSettings = {
      connectTimeoutSeconds,
      extraArgs: values['ssh-config'] ? checkExtraArgs(['-F', values['ssh-config']]) : [],
    };
    return new SshConnection(parseDestination(values.target), settings);
  } catch (err) {
    throw new UsageError(`--target: ${(err as Error).message}`);
  }
}

/** `--gpus host,0,1`: GPU indices and `host`. */
export function endpointList(flag: string, text: string): number[] {
  return text.split(',').map((g) => {
    try {
      return parseEndpoint(g);
    } catch (err) {
      throw new UsageError(`--${flag}: ${(err as Error).message}`);
    }
  });
}
