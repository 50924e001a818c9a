import { describe, expect, it } from 'vitest';
import { variantEnv } from '../../src/core/collective/variantEnv';
import { variantEnv as reexported } from '../../src/core/collective/collective';

describe('variantEnv', () => {
  it('default sets nothing on either library', () => {
    expect(variantEnv('default', '2.31.0', 'rccl')).toEqual({});
    expect(variantEnv('default', undefined, 'nccl')).toEqual({});
  });
  it('ce on RCCL: zero CTAs, cuMem and explicit registration only (RCCL CE tests, isCeDispatchConfigured)', () => {
    expect(variantEnv('ce', '2.31.0', 'rccl')).toEqual({
      NCCL_CTA_POLICY: '2',
      NCCL_CUMEM_ENABLE: '1',
      NCCL_LOCAL_REGISTER: '0',
    });
    expect(variantEnv('ce', '2.28.0', 'rccl')).toBeDefined();
    expect(variantEnv('ce', '2.27.7', 'rccl')).toBeUndefined();
    expect(variantEnv('ce', undefined, 'rccl')?.NCCL_LOCAL_REGISTER).toBe('0');
  });
  it('ce on NCCL: no NCCL_LOCAL_REGISTER', () => {
    expect(variantEnv('ce', '2.30.7', 'nccl')).toEqual({ NCCL_CTA_POLICY: '2', NCCL_CUMEM_ENABLE: '1' });
    expect(variantEnv('ce', '2.27.7', 'nccl')).toBeUndefined();
  });
  it('gin-sdma-lib, and gin-sdma as its old name, only on RCCL', () => {
    const lib = variantEnv('gin-sdma-lib', '2.31.0', 'rccl');
    expect(lib?.NCCL_GIN_TYPE).toBe('7');
    expect(variantEnv('gin-sdma', '2.31.0', 'rccl')).toEqual(lib);
    expect(variantEnv('gin-sdma-lib', '2.30.7', 'rccl')?.NCCL_GIN_TYPE).toBe('6');
    expect(variantEnv('gin-sdma-lib', '2.30.3', 'rccl')).toBeUndefined();
    expect(variantEnv('gin-sdma-lib', '2.31.0', 'nccl')).toBeUndefined();
  });
  it('an unknown variant sets nothing it could name', () => {
    expect(variantEnv('sdma', '2.31.0', 'rccl')).toBeUndefined();
  });
  it('collective.ts re-exports the same function', () => {
    expect(reexported).toBe(variantEnv);
  });
});
