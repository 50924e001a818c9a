/**
 * Hostile variants of sdmatl files for the readers' fuzz tests: bytes flipped, cut, grown,
 * header fields replaced, odd doubles in the columns, files spliced. Deterministic (xorshift32),
 * so a failure can be replayed from its seed.
 */
import { random } from '../support/bigRun';

/** Whole numbers below n, from the shared xorshift32 generator. */
export function rng(seed: number): (n: number) => number {
  const next = random(seed);
  return (n: number) => Math.floor(next() * n);
}

const ODD_U32 = [0, 1, 2, 3, 5, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];
const ODD_F64 = [NaN, Infinity, -Infinity, -0, -1, 1e308, -1e-308, 2 ** 53];

export function mutate(base: Uint8Array, others: Uint8Array[], pick: (n: number) => number): Uint8Array {
  const data = base.slice();
  const view = new DataView(data.buffer);
  switch (pick(8)) {
    case 0: {
      // a few bytes changed anywhere
      for (let k = 1 + pick(4); k > 0; k--) data[pick(data.length)] = pick(256);
      return data;
    }
    case 1:
      // cut off, as a crash mid-write leaves it
      return data.subarray(0, pick(data.length));
    case 2: {
      // grown: bytes appended
      const longer = new Uint8Array(data.length + 1 + pick(64));
      longer.set(data);
      return longer;
    }
    case 3:
      // the version, or a reserved field
      view.setUint32([8, 12][pick(2)]!, ODD_U32[pick(ODD_U32.length)]!, true);
      return data;
    case 4:
      // the event count, small or huge
      view.setBigUint64(16, BigInt(pick(64)) + (pick(2) ? 0n : 2n ** BigInt(20 + pick(44))), true);
      return data;
    case 5: {
      // an 8-byte aligned value in the columns replaced by an odd double
      const at = 32 + pick(Math.max(1, (data.length - 40) >> 3)) * 8;
      if (at + 8 <= data.length) view.setFloat64(at, ODD_F64[pick(ODD_F64.length)]!, true);
      return data;
    }
    case 6: {
      // the front of one file, the back of another
      const other = others[pick(others.length)]!;
      const cut = pick(data.length);
      const out = new Uint8Array(cut + other.length - Math.min(cut, other.length));
      out.set(data.subarray(0, cut));
      out.set(other.subarray(Math.min(cut, other.length)), cut);
      return out;
    }
    default: {
      // the last byte (a flag in version 2, padding otherwise) set to any value
      if (data.length > 0) data[data.length - 1 - pick(Math.min(8, data.length))] = pick(256);
      return data;
    }
  }
}
