/**
 * The device-trace spans of a run (`device-span` records: which CU ran what, when) kept as
 * columns. A run sends up to 200,000 of them by default; an object each would cost several
 * times the memory of these arrays and make the timeline build walk scattered objects.
 */
import type { DeviceSpan } from './protocol';

/** The CU lane number of a span: XCC x 1024 + CU, as the sweep's timelines number CUs. */
export function cuLane(xcc: number, cu: number): number {
  return xcc * 1024 + cu;
}

export const SPAN_ENGINE = 1;
export const SPAN_PULL = 2;

export interface DeviceSpanColumns {
  count: number;
  gpu: Uint16Array;
  /** cuLane(xcc, cu). */
  cu: Uint32Array;
  /** GPU the bytes went to (from, with SPAN_PULL); -1 for a scope. */
  peer: Int16Array;
  /** SPAN_ENGINE: a copy engine the kernel started moved the bytes; SPAN_PULL: they came from `peer`. */
  flags: Uint8Array;
  /** Index into `labels`. */
  label: Int32Array;
  labels: string[];
  startNs: Float64Array;
  endNs: Float64Array;
  bytes: Float64Array;
}

const FIRST_CAPACITY = 256;

export function newDeviceSpans(): DeviceSpanColumns {
  return {
    count: 0,
    gpu: new Uint16Array(FIRST_CAPACITY),
    cu: new Uint32Array(FIRST_CAPACITY),
    peer: new Int16Array(FIRST_CAPACITY),
    flags: new Uint8Array(FIRST_CAPACITY),
    label: new Int32Array(FIRST_CAPACITY),
    labels: [],
    startNs: new Float64Array(FIRST_CAPACITY),
    endNs: new Float64Array(FIRST_CAPACITY),
    bytes: new Float64Array(FIRST_CAPACITY),
  };
}

type NumberColumn = 'gpu' | 'cu' | 'peer' | 'flags' | 'label' | 'startNs' | 'endNs' | 'bytes';
const NUMBER_COLUMNS: readonly NumberColumn[] = ['gpu', 'cu', 'peer', 'flags', 'label', 'startNs', 'endNs', 'bytes'];

function grow(s: DeviceSpanColumns): void {
  for (const key of NUMBER_COLUMNS) {
    const old = s[key];
    const wider = new (old.constructor as new (n: number) => typeof old)(old.length * 2);
    wider.set(old as never);
    (s as unknown as Record<NumberColumn, typeof old>)[key] = wider;
  }
}

/** Labels seen per column set, for interning (not part of the data: rebuilt from `labels`). */
const labelIndexes = new WeakMap<DeviceSpanColumns, Map<string, number>>();

function labelIndex(s: DeviceSpanColumns, label: string): number {
  let index = labelIndexes.get(s);
  if (!index) labelIndexes.set(s, (index = new Map(s.labels.map((l, i) => [l, i]))));
  let i = index.get(label);
  if (i === undefined) {
    i = s.labels.length;
    s.labels.push(label);
    index.set(label, i);
  }
  return i;
}

/** Appends one validated `device-span` record. */
export function addDeviceSpan(s: DeviceSpanColumns, r: DeviceSpan): void {
  if (s.count === s.gpu.length) grow(s);
  const i = s.count++;
  s.gpu[i] = r.gpu;
  s.cu[i] = cuLane(r.xcc, r.cu);
  s.peer[i] = r.peer;
  s.flags[i] = (r.mover === 'engine' ? SPAN_ENGINE : 0) | (r.pull ? SPAN_PULL : 0);
  s.label[i] = labelIndex(s, r.label);
  s.startNs[i] = r.startNs;
  s.endNs[i] = r.endNs;
  s.bytes[i] = r.bytes;
}

/** Whether span `i` is a scope (a CU busy with no bytes to or from a peer), not a transfer. */
export function isScope(s: DeviceSpanColumns, i: number): boolean {
  return s.peer[i]! < 0 && s.bytes[i]! === 0;
}
