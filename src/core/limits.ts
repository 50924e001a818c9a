/**
 * What the native helper accepts, read from the file its build reads too (native/src/limits.json,
 * turned into a C++ header by CMake): a sweep or matrix the extension lets through is one the
 * helper takes, and the other way round.
 */
import raw from '../../native/src/limits.json';

export interface HelperLimits {
  /** Largest copy size in bytes (each of --sizes, --size, --timeline-size). */
  sizeBytesMax: number;
  /** Largest CU count (--cus, --timeline-cus) before the node's own count narrows it. */
  cusMax: number;
  itersMax: number;
  warmupMax: number;
  /** The simulator's delay per work unit, ms (--sim-delay-ms). */
  simDelayMsMax: number;
  simGpusMax: number;
  timelineRepeatsMax: number;
  timelineEventsMax: number;
  targetMsMax: number;
  blocksPerCuMax: number;
  /** Most wavefronts (warps) per CU of --waves-per-cu. */
  wavesPerCuMax: number;
  /** Most engines, streams or channels one copy is split over (--engines). */
  splitMax: number;
  /** Most pieces of one batched copy (--batch). */
  batchMax: number;
  /** Most timed repeats of one collective point (collective --repeats). */
  collectiveRepeatsMax: number;
  /** Most entries in --sizes and in --cus. */
  listLengthMax: number;
  /** Most endpoint pairs in --pairs. */
  pairsMax: number;
  gpuIndexMax: number;
  /** Largest N of a --fault KIND-after=N. */
  faultAfterMax: number;
  /** Most milliseconds long work stays silent: it prints a heartbeat record by then. */
  heartbeatMs: number;
  /** The KIND of each --fault KIND-after=N the helper knows. */
  faultKinds: readonly string[];
  /** Largest FACTOR of a --sim-weak WHAT=FACTOR[@HOST] (the smallest is above 0). */
  simWeakFactorMax: number;
  /** The WHAT of each --sim-weak WHAT=FACTOR[@HOST] the helper knows. */
  simWeakKinds: readonly string[];
}

export const LIMITS: HelperLimits = raw;

/** Whether `spec` is a --fault the helper accepts: KIND-after=N with N in 0..faultAfterMax. */
export function isFaultSpec(spec: string): boolean {
  const m = /^([a-z]+)-after=(\d{1,15})$/.exec(spec);
  return m !== null && LIMITS.faultKinds.includes(m[1]!) && Number(m[2]) <= LIMITS.faultAfterMax;
}

/** "1 B .. 64 GiB": the size range, as messages name it. */
export function sizeRangeText(): string {
  const gib = LIMITS.sizeBytesMax / 1024 ** 3;
  return Number.isInteger(gib) ? `1 B .. ${gib} GiB` : `1 B .. ${LIMITS.sizeBytesMax} B`;
}

/** `--sim-weak` as the helper takes it: `WHAT=FACTOR[@HOST]`, comma-separated, FACTOR in (0, simWeakFactorMax] (docs/SIMULATOR.md). */
export function isSimWeakSpec(spec: string): boolean {
  return spec.split(',').every((part) => {
    // HOST is a short host name (the helper refuses one with a '.'), one DNS label long at most.
    const m = /^([a-z]+)=([0-9]+(?:\.[0-9]+)?)(?:@([A-Za-z0-9][A-Za-z0-9_-]{0,62}))?$/.exec(part);
    if (!m || !LIMITS.simWeakKinds.includes(m[1]!)) return false;
    const factor = Number(m[2]);
    return factor > 0 && factor <= LIMITS.simWeakFactorMax;
  });
}
