/**
 * The simulated node's AlltoAll as closed-form times (the constants of
 * native/src/backends/sim/collective_model.hpp), for tests and benchmarks that check what the advice
 * makes of it: default kernels 12 µs + bus bytes at 380 GB/s; librccl's GIN-SDMA path
 * 14 + 6 µs + 2 µs per 128 MiB packet per peer + bus bytes at 425 GB/s. Bus bytes = bytes each
 * rank receives x (ranks - 1) / ranks (nccl-tests).
 */
export const SIM_RANKS = 8;

const busBytes = (bytes: number, ranks: number) => (bytes * (ranks - 1)) / ranks;

export function simAlltoAllUs(variant: 'default' | 'gin-sdma-lib', bytes: number, ranks = SIM_RANKS): number {
  if (variant === 'default') return 12 + busBytes(bytes, ranks) / 380e3;
  const packets = Math.max(1, Math.ceil(bytes / ranks / (128 * 2 ** 20)));
  return 14 + 6 + 2 * packets + busBytes(bytes, ranks) / 425e3;
}

/** Where the two meet, in bytes each rank receives (one packet per peer: below 128 MiB per peer). */
export function simAlltoAllCrossing(ranks = SIM_RANKS): number {
  return 10 / (((ranks - 1) / ranks) * (1 / 380e3 - 1 / 425e3));
}
