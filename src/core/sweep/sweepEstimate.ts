/**
 * How large a sweep is before it starts: its points, counted the way the helper's `workUnits`
 * lays them out (native/src/commands/sweep.cpp), and a rough time, so a run of many waves x CUs
 * x engines x sizes is said, and confirmed, before it takes the node for an hour.
 *
 * Points, per endpoint pair and size:
 * - each cu/* path: CU counts x waves-per-CU values (no waves list: 1);
 * - engine/host: the engine counts, plus one per batch size above 0 (a batched call is one copy's split);
 * - engine/device: engine counts x rocSHMEM SDMA modes x waves values (no waves list: 1);
 * - the runtime default series (`--runtime-default`): one more.
 *
 * Time, "about": each point is (warm-up + timed iterations) copies of ESTIMATE_MODEL.fixedUs
 * plus its size at ESTIMATE_MODEL.gbps, and ESTIMATE_MODEL.overheadMs of its own. Real nodes
 * differ by a few times either way; it tells a one-minute sweep from a one-hour one.
 */
import type { SweepOptions } from './sweepOptions';

/** The simple model of the estimate (the module comment). */
export const ESTIMATE_MODEL = {
  /** Untimed iterations before the timed ones (the helper's default --warmup). */
  warmup: 3,
  /** Launch and synchronisation per copy, microseconds. */
  fixedUs: 20,
  /** Bandwidth assumed for the bytes, GB/s. */
  gbps: 50,
  /** Per point: allocation, validation, the sample's record. */
  overheadMs: 2,
} as const;

/**
 * Above either, the quick pick asks before it starts. 1000 points: the default sweep on a
 * one-GPU node (three pairs, 13 sizes, 9 CU counts: 780 points, well under a minute) never asks.
 */
export const CONFIRM_ABOVE = { points: 1000, ms: 2 * 60_000 } as const;

export interface SweepEstimate {
  /** Points (samples) the helper will measure. */
  points: number;
  /** Points per endpoint pair and size. */
  pointsPerSize: number;
  /** Endpoint pairs counted (the node's default where the options name none). */
  pairs: number;
  /** About this many milliseconds (ESTIMATE_MODEL). */
  ms: number;
  /** Whether to ask before starting (CONFIRM_ABOVE). */
  large: boolean;
}

/** Points per endpoint pair and size of `o`'s paths and dimensions. */
export function pointsPerSize(
  o: Pick<SweepOptions, 'paths' | 'cus' | 'wavesPerCu' | 'engines' | 'batch' | 'shmemSdma' | 'runtimeDefault'>,
): number {
  const waves = Math.max(1, o.wavesPerCu?.length ?? 0);
  const engines = Math.max(1, o.engines?.length ?? 1);
  const batches = (o.batch ?? []).filter((b) => b > 0).length;
  const modes = Math.max(1, o.shmemSdma?.length ?? 1);
  let n = 0;
  for (const path of o.paths) {
    if (path === 'cu/host' || path === 'cu/device') n += o.cus.length * waves;
    else if (path === 'engine/host') n += engines + batches;
    else n += engines * modes * waves;
  }
  return n + (o.runtimeDefault === true ? 1 : 0);
}

/** Milliseconds one point of `sizeBytes` takes in the model, at `iters` timed iterations. */
export function pointMs(sizeBytes: number, iters: number): number {
  const copyUs = ESTIMATE_MODEL.fixedUs + sizeBytes / (ESTIMATE_MODEL.gbps * 1e3);
  return ((ESTIMATE_MODEL.warmup + iters) * copyUs) / 1000 + ESTIMATE_MODEL.overheadMs;
}

/**
 * The points and time of a sweep of `o`. `defaultPairs`: how many pairs the node's default is,
 * where `o` names none (1 with two or more GPUs, 3 with one; 1 where the node is not known yet).
 */
export function estimateSweep(o: SweepOptions, defaultPairs = 1): SweepEstimate {
  const pairs = o.pairs.length > 0 ? o.pairs.length : Math.max(1, defaultPairs);
  const perSize = pointsPerSize(o);
  const points = perSize * o.sizes.length * pairs;
  const ms = pairs * perSize * o.sizes.reduce((sum, size) => sum + pointMs(size, o.iters), 0);
  return { points, pointsPerSize: perSize, pairs, ms, large: points > CONFIRM_ABOVE.points || ms > CONFIRM_ABOVE.ms };
}

/** "40 s", "3 min", "1 h 20 min": a duration as the estimate says it (never below 1 s). */
export function durationWords(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest === 0 ? `${h} h` : `${h} h ${rest} min`;
}
