import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BuildProgress,
  bundledHelperPaths,
  buildLocation,
  buildPercent,
  findRocm,
  HIP_VARIANT,
  locateHelper,
  wantHipBuild,
} from '../../src/core/runtime/helper';

describe('build percentages', () => {
  it('reads CMake Makefile and Ninja progress lines', () => {
    const percents = {
      '[ 42%] Building CXX object CMakeFiles/sdma_probe_core.dir/src/args.cpp.o': 42,
      '[  2%] Building CXX object x.o': 2,
      '[100%] Built target sdma-probe': 100,
      '[3/12] Building CXX object a.o': 25,
      '[12/12] Linking CXX executable sdma-probe': 100,
    };
    for (const [line, percent] of Object.entries(percents)) expect(buildPercent(line), line).toBe(percent);
  });

  it('ignores lines that are not progress', () => {
    for (const line of [
      '-- Configuring done',
      'src/args.cpp:12: warning: [ 42%] in a message',
      '',
      '[101%] odd',
      '[5/0] odd',
      'gmake[2]: Entering directory',
    ]) {
      expect(buildPercent(line)).toBeUndefined();
    }
  });

  it('turns percentages into increments that add up to the percentage shown, never going back', () => {
    const p = new BuildProgress();
    const increments = [
      '-- Configuring done',
      '[ 10%] a',
      '[ 10%] b',
      '[ 35%] c',
      '[ 20%] restarted count',
      '[100%] done',
    ].map((l) => p.advance(l));
    expect(increments).toEqual([0, 10, 0, 25, 0, 65]);
    expect(increments.reduce((a, b) => a + b, 0)).toBe(100);
    expect(p.percent).toBe(100);
  });
});

describe('the hip build decision', () => {
  const exists = (files: string[]) => (p: string) => files.includes(p);

  it('finds ROCm on PATH, under ROCM_PATH, or in /opt/rocm/bin', () => {
    expect(findRocm({ PATH: ['/usr/bin', '/tools/rocm/bin'].join(delimiter) }, exists(['/tools/rocm/bin/hipcc']))).toBe(
      '/tools/rocm/bin/hipcc',
    );
    expect(findRocm({ PATH: '/usr/bin', ROCM_PATH: '/rocm-7' }, exists(['/rocm-7/bin/hipconfig']))).toBe(
      '/rocm-7/bin/hipconfig',
    );
    expect(findRocm({ PATH: '/usr/bin' }, exists(['/opt/rocm/bin/hipconfig']))).toBe('/opt/rocm/bin/hipconfig');
    expect(findRocm({ PATH: '/usr/bin' }, exists(['/usr/bin/cmake']))).toBeUndefined();
    expect(findRocm({}, exists([]))).toBeUndefined();
  });

  it('builds hip only when the bundled helper lacks it, ROCm is here, and the backend may be hip', () => {
    const rocm = '/opt/rocm/bin/hipcc';
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'auto', rocm })).toBe(true);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'hip', rocm })).toBe(true);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda', 'hip'], backendSetting: 'auto', rocm })).toBe(false);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'sim', rocm })).toBe(false);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'cuda', rocm })).toBe(false);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'auto', rocm: undefined })).toBe(false);
    // A HIP compiler without the AMD GPU driver: only an explicit `hip` builds.
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'auto', rocm, amdGpu: false })).toBe(false);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'hip', rocm, amdGpu: false })).toBe(true);
    expect(wantHipBuild({ bundledBackends: ['sim', 'cuda'], backendSetting: 'auto', rocm, amdGpu: true })).toBe(true);
  });

  it('tries the package prebuilt helper first', () => {
    expect(bundledHelperPaths('/ext')).toEqual(['/ext/bin/sdma-probe', '/ext/native/build/sdma-probe']);
  });
});

// A stand-in `cmake` on PATH: configure prints a line, build prints percentages and writes a
// helper that answers --version with hip, or fails when FAKE_CMAKE_FAIL is set.
describe('the first-use hip build, with a stand-in cmake', () => {
  let dir: string;
  let savedPath: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-hip-build-'));
    const tools = join(dir, 'tools');
    mkdirSync(tools);
    writeFileSync(
      join(tools, 'cmake'),
      [
        '#!/bin/sh',
        `echo "$*" >> '${join(dir, 'cmake-calls')}'`,
        'if [ "$1" = --version ]; then echo "cmake version 3.25.1"; exit 0; fi',
        'if [ "$1" = -S ]; then echo "-- Configuring done"; exit 0; fi',
        'if [ -n "$FAKE_CMAKE_FAIL" ]; then echo "[ 30%] Building HIP object hip_backend.hip.o"; echo "hip_backend.hip:1: error: no ROCm" >&2; exit 2; fi',
        'echo "[ 25%] Building CXX object a.o"; echo "[ 75%] Building HIP object b.o"; echo "[100%] Linking CXX executable sdma-probe"',
        `printf '#!/bin/sh\\necho "sdma-probe 0.1.0 (protocol 1; backends: sim, cuda, hip)"\\n' > "$2/sdma-probe"`,
        'chmod +x "$2/sdma-probe"',
      ].join('\n'),
    );
    chmodSync(join(tools, 'cmake'), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${tools}${delimiter}${savedPath ?? ''}`;
    mkdirSync(join(dir, 'native'));
    writeFileSync(join(dir, 'native', 'CMakeLists.txt'), 'project(x)\n');
    const bin = join(dir, 'ext', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'sdma-probe'), '#!/bin/sh\necho "sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)"\n');
    chmodSync(join(bin, 'sdma-probe'), 0o755);
  });
  afterEach(() => {
    process.env.PATH = savedPath;
    delete process.env.FAKE_CMAKE_FAIL;
    rmSync(dir, { recursive: true, force: true });
  });

  const ROCM = '/opt/rocm/bin/hipcc';
  const locate = (events: string[], backendSetting: string, rocm: string | undefined) =>
    locateHelper({
      bundledPaths: bundledHelperPaths(join(dir, 'ext')),
      build: {
        sourceDir: join(dir, 'native'),
        cacheDir: join(dir, 'cache'),
        onOutput: (line) => events.push(`line ${line}`),
        onPercent: (increment, percent) => events.push(`+${increment} ${percent}%`),
      },
      hip: { backendSetting, rocm },
    });

  it('builds with hip on, streaming each line and the percentages, and uses the build', async () => {
    const events: string[] = [];
    const info = await locate(events, 'auto', ROCM);
    expect(info.source).toBe('built');
    expect(info.backends).toContain('hip');
    expect(info.hipBuildProblem).toBeUndefined();
    const { outDir, log } = await buildLocation({
      sourceDir: join(dir, 'native'),
      cacheDir: join(dir, 'cache'),
      variant: HIP_VARIANT,
    });
    expect(info.path).toBe(join(outDir, 'sdma-probe'));
    expect(events).toEqual([
      'line -- Configuring done',
      'line [ 25%] Building CXX object a.o',
      '+25 25%',
      'line [ 75%] Building HIP object b.o',
      '+50 75%',
      'line [100%] Linking CXX executable sdma-probe',
      '+25 100%',
    ]);
    const calls = readFileSync(join(dir, 'cmake-calls'), 'utf8');
    expect(calls).toMatch(/-DSDMA_PROBE_WITH_HIP=ON/);
    expect(calls).toMatch(/--build \S+ --parallel [1-9]\d*/);
    expect(readFileSync(log, 'utf8')).toMatch(/\[100%\] Linking/);
  });

  it('keeps the bundled helper and names the log when the hip build fails, and does not retry it', async () => {
    process.env.FAKE_CMAKE_FAIL = '1';
    const info = await locate([], 'auto', ROCM);
    expect(info.source).toBe('bundled');
    expect(info.path).toBe(join(dir, 'ext', 'bin', 'sdma-probe'));
    const { log } = await buildLocation({
      sourceDir: join(dir, 'native'),
      cacheDir: join(dir, 'cache'),
      variant: HIP_VARIANT,
    });
    expect(info.hipBuildProblem).toContain(log);
    expect(info.hipBuildProblem).toMatch(/building the hip backend failed/);
    expect(readFileSync(log, 'utf8')).toMatch(/error: no ROCm/);
    const buildsBefore = readFileSync(join(dir, 'cmake-calls'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('--build')).length;
    const again = await locate([], 'auto', ROCM);
    expect(again.source).toBe('bundled');
    expect(again.hipBuildProblem).toMatch(
      /could not be built from these sources before.*Remove .*\.failed to try again/,
    );
    expect(
      readFileSync(join(dir, 'cmake-calls'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('--build')).length,
    ).toBe(buildsBefore);
  });

  it('builds nothing when the backend setting is sim or there is no ROCm', async () => {
    for (const [setting, rocm] of [
      ['sim', ROCM],
      ['auto', undefined],
    ] as const) {
      const info = await locate([], setting, rocm);
      expect(info).toMatchObject({ source: 'bundled', backends: ['sim', 'cuda'] });
    }
    expect(existsSync(join(dir, 'cmake-calls'))).toBe(false);
  });

  it('makes a bundled helper that lost its executable bit executable again', async () => {
    chmodSync(join(dir, 'ext', 'bin', 'sdma-probe'), 0o644);
    const info = await locate([], 'sim', ROCM);
    expect(info).toMatchObject({ source: 'bundled', path: join(dir, 'ext', 'bin', 'sdma-probe') });
  });
});
