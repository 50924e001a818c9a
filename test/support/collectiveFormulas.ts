/**
 * Test reference: the nccl-tests / rccl-tests bandwidth formulas and size steps
 * (docs/COLLECTIVES.md), recomputed here to check what the helper prints.
 */
import type { CollectiveOp } from '../../src/core/protocol';

/** Share of the buffer that crosses a link: (n-1)/n for AllGather and AlltoAll. */
export function busbwFactor(op: CollectiveOp, ranks: number): number {
  void op; // both operations move every block but the rank's own
  return ranks > 0 ? (ranks - 1) / ranks : 0;
}

/** 1e9 bytes per second, with `sizeBytes` the bytes each rank receives. */
export function algbwGbps(sizeBytes: number, timeUs: number): number {
  return timeUs > 0 ? sizeBytes / (timeUs * 1e3) : 0;
}

export function busbwGbps(op: CollectiveOp, ranks: number, sizeBytes: number, timeUs: number): number {
  return algbwGbps(sizeBytes, timeUs) * busbwFactor(op, ranks);
}

/** Sizes of -b/-e/-f/-i as nccl-tests steps them: multiply when the factor is above 1, else add. */
export function sweepSizes(minBytes: number, maxBytes: number, factor: number, stepBytes = 0): number[] {
  const sizes: number[] = [];
  if (minBytes <= 0 || minBytes > maxBytes) return sizes;
  for (let size = minBytes; size <= maxBytes; size = factor > 1 ? size * factor : size + stepBytes) {
    sizes.push(size);
    if (factor <= 1 && stepBytes <= 0) break;
  }
  return sizes;
}
