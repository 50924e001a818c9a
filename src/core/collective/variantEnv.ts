/**
 * The environment each `collective` variant sets before its communicator is created, built
 * from the knob catalog so the helper (native/src/backend/collective_variants.cpp) and the
 * advice cannot drift; the contract tests compare the two.
 */
import { knob, sdmaValues } from '../advice/knobs';
import { compareVersions } from '../advice/version';
export type Vendor = 'amd' | 'nvidia';

/** The SDMA-marked value of a catalog knob at a version; undefined when none applies. */
function engineValue(name: string, value: string, libraryVersion: string | undefined): string | undefined {
  const k = knob(name);
  const v = (k?.values ?? []).find((x) => x.sdma === true && x.value === value);
  if (!v) return undefined;
  if (libraryVersion !== undefined && compareVersions(libraryVersion, v.versions.from ?? '0') < 0) return undefined;
  return v.value;
}

/**
 * What a variant sets for the library version on the node (undefined: the catalog has no
 * engine value for that version, and the variant cannot run).
 * - default: nothing.
 * - ce, NVIDIA: NCCL_CTA_POLICY=2 (ZERO as its number: NCCL before 2.29 reads only numbers) on
 *   cuMem-backed symmetric buffers (NCCL_CUMEM_ENABLE=1).
 * - ce, AMD: the same plus NCCL_LOCAL_REGISTER=0, as RCCL's CE tests configure CE dispatch
 *   (isCeDispatchConfigured); RCCL's own default for NCCL_CUMEM_ENABLE is off.
 * - gin-sdma-lib ('gin-sdma' is its old name), AMD only: RCCL's prerequisites plus the
 *   NCCL_GIN_TYPE that means Anvil SDMA at that version, and librccl's AlltoAll GIN path forced
 *   to SDMA at every size (NCCL_GIN_A2A_ENABLE=1, NCCL_GIN_A2A_MIN_BYTES=0,
 *   NCCL_GIN_A2A_SDMA_MIN_BYTES=0: gin_alltoall_sdma.cu).
 */
export function variantEnv(
  variant: string,
  libraryVersion: string | undefined,
  library: 'nccl' | 'rccl',
): Record<string, string> | undefined {
  if (variant === 'default') return {};
  if (variant === 'ce') {
    // The number 2 means ZERO wherever ZERO exists (2.28 on); the name only from 2.29.2 (catalog).
    const zero = engineValue('NCCL_CTA_POLICY', '2', libraryVersion);
    if (zero === undefined) return undefined;
    if (library === 'nccl') return { NCCL_CTA_POLICY: zero, NCCL_CUMEM_ENABLE: '1' };
    const local = engineValue('NCCL_LOCAL_REGISTER', '0', libraryVersion);
    const cumem = knob('NCCL_CUMEM_ENABLE')?.recommended;
    if (local === undefined || cumem === undefined) return undefined;
    return { NCCL_CTA_POLICY: zero, NCCL_CUMEM_ENABLE: cumem, NCCL_LOCAL_REGISTER: local };
  }
  if ((variant !== 'gin-sdma-lib' && variant !== 'gin-sdma') || library !== 'rccl') return undefined;
  const ginType = knob('NCCL_GIN_TYPE');
  const sdma = ginType ? sdmaValues(ginType, libraryVersion) : [];
  if (sdma.length !== 1) return undefined;
  const env: Record<string, string> = {};
  for (const name of ['NCCL_GIN_ENABLE', 'NCCL_CUMEM_ENABLE', 'NCCL_DMABUF_ENABLE', 'HSA_NO_SCRATCH_RECLAIM']) {
    const k = knob(name);
    if (k?.recommended !== undefined) env[name] = k.recommended;
  }
  env.NCCL_GIN_TYPE = sdma[0]!.value;
  const forced: Record<string, string> = {
    NCCL_GIN_A2A_ENABLE: '1',
    NCCL_GIN_A2A_MIN_BYTES: '0',
    NCCL_GIN_A2A_SDMA_MIN_BYTES: '0',
  };
  for (const [name, value] of Object.entries(forced)) {
    if (knob(name)) env[name] = value;
  }
  return env;
}
