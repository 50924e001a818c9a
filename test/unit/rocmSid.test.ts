/**
 * The records native/ci/rocm-sid.sh leaves from the AMD build against Debian sid's ROCm
 * (SDMA_LENS_ROCM_SID_RECORDS names the folder; without it every check here is skipped):
 * the helper built against the real ROCm prints protocol-valid records, its RCCL detection
 * names the version the real librccl reports, and what the knob catalog says at that version.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knob, knobsFor, sdmaValues } from '../../src/core/advice/knobs';
import { inRange } from '../../src/core/advice/version';
import { parseLine } from '../../src/core/protocol';

const dir = process.env.SDMA_LENS_ROCM_SID_RECORDS;
const present = dir !== undefined && existsSync(join(dir, 'rccl.ndjson'));

function lines(file: string): unknown[] {
  return readFileSync(join(dir!, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** NCCL's version code (nccl.h NCCL_VERSION): major*10000 + minor*100 + patch from 2.9, major*1000 + minor*100 + patch before. */
function decodeNcclVersion(code: number): string {
  if (code >= 10000) return `${Math.floor(code / 10000)}.${Math.floor(code / 100) % 100}.${code % 100}`;
  return `${Math.floor(code / 1000)}.${Math.floor(code / 100) % 10}.${code % 100}`;
}

describe.skipIf(!present)('AMD build against Debian sid ROCm (records of native/ci/rocm-sid.sh)', () => {
  it('every line the helper printed there is a valid protocol record', () => {
    const files = readdirSync(dir!).filter((f) => f.endsWith('.ndjson') && f !== 'rccl.ndjson');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(dir!, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(text.length, `${f} is empty`).toBeGreaterThan(0);
      for (const line of text) expect(parseLine(line).kind, `${f}: ${line}`).toBe('record');
    }
  });

  it("the helper's RCCL detection: the package's version, or the loader's reason it cannot load", () => {
    const pkg = lines('rccl.ndjson')[0] as { code: number; banner: string; package: string };
    const expected = decodeNcclVersion(pkg.code);
    expect(pkg.banner).toContain(`RCCL version ${expected}`);
    const warnings = lines('collective-hip-rccl.ndjson').filter(
      (r): r is { type: string; code: string; message: string } => (r as { type?: string }).type === 'warning',
    );
    const loaded = warnings.find((w) => w.code === 'collective-library');
    const failed = warnings.find((w) => w.code === 'collective-library-unavailable');
    expect(loaded ?? failed, JSON.stringify(warnings)).toBeDefined();
    const missing = readFileSync(join(dir!, 'rccl-missing.txt'), 'utf8').trim().split(/\s+/).filter(Boolean);
    if (loaded) {
      // ncclGetVersion through dlopen, as the helper reads it.
      expect(missing).toEqual([]);
      const m = /^rccl (\d+\.\d+\.\d+) at (\S+)/.exec(loaded.message);
      expect(m, loaded.message).not.toBeNull();
      expect(m![1]).toBe(expected);
      expect(m![2]).toMatch(/librccl\.so/);
      writeFileSync(join(dir!, 'detection.txt'), `helper read rccl ${m![1]} with ncclGetVersion`);
    } else {
      // The library's chain is incomplete: the helper must say which piece, as the loader does.
      expect(missing.length, 'ldd found everything, yet the helper could not load it').toBeGreaterThan(0);
      expect(failed!.message).toMatch(/^cannot load rccl: /);
      expect(
        missing.some((lib) => failed!.message.includes(lib)),
        failed!.message,
      ).toBe(true);
      writeFileSync(join(dir!, 'detection.txt'), `helper: ${failed!.message}`);
    }
  });

  it('the knob catalog at that RCCL version: NCCL_GIN_TYPE', () => {
    const pkg = lines('rccl.ndjson')[0] as { code: number; package: string };
    const version = decodeNcclVersion(pkg.code);
    const gin = knob('NCCL_GIN_TYPE');
    expect(gin).toBeDefined();
    const applies = inRange(version, gin!.versions);
    expect(knobsFor('rccl', version).includes(gin!)).toBe(applies);
    const sdma = sdmaValues(gin!, version);
    // A knob that does not exist at a version has no value selecting the engine there.
    if (!applies) expect(sdma).toEqual([]);
    const from = gin!.versions.from ?? 'the first release';
    const said = applies
      ? `NCCL_GIN_TYPE applies at rccl ${version}; SDMA value ${sdma.map((x) => `${x.value} (${x.meaning})`).join(', ') || 'none'}`
      : `NCCL_GIN_TYPE does not exist at rccl ${version} (catalog: from ${from}), no GIN-SDMA; rccl knobs at this version: ${
          knobsFor('rccl', version)
            .map((k) => k.name)
            .join(', ') || 'none'
        }`;
    writeFileSync(join(dir!, 'catalog.txt'), `${said} (Debian librccl1 ${pkg.package})`);
  });
});
