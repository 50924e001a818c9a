/**
 * A host-held timeline's engine as the extension host starts it: its own process
 * (startEngineProcess), the real engine bundle built from src/core/runs/timelineEngineProcess.ts
 * as scripts/build.mjs builds it. It opens the file, answers over its IPC channel and ends when
 * killed or when its host goes; a failure says the engine's exit and the end of its stderr; it
 * gets none of the host's Node options.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimelineEngineHost, processMemory, startEngineProcess } from '../../src/core/runs/timelineEngineHost';
import type { FromWorker } from '../../src/core/timeline/timelineEngineProtocol';
import { ENGINE_PROCESS_ENV } from '../../src/core/timeline/timelineEngineProtocol';
import { repeated, sdmatlBytes } from '../unit/timelineFixture';

const META = { gpuCus: [64, 64], vendor: 'amd' as const, simulated: true };

let dir: string;
let bundle: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-lens-engine-process-'));
  bundle = join(dir, 'timelineEngine.js');
  await esbuild.build({
    entryPoints: ['src/core/runs/timelineEngineProcess.ts'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  file = join(dir, 'timeline.sdmatl');
  writeFileSync(file, sdmatlBytes(repeated(2000)));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether process `pid` is gone (or only a zombie: ended, not yet reaped). */
function ended(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stand-in engine bundle of `source` (for what a real engine would not do on purpose). */
function standIn(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

describe('the engine in a process of its own', () => {
  it('opens the file, answers the index and a level of detail over its channel, and ends when disposed', async () => {
    const answers: FromWorker[] = [];
    const failures: string[] = [];
    let wake = () => {};
    const host = new TimelineEngineHost({
      bundle,
      file,
      meta: META,
      readers: 1,
      onAnswer: (a) => {
        answers.push(a);
        wake();
      },
      onFailure: (m) => {
        failures.push(m);
        wake();
      },
    });
    const next = (test: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (test() || failures.length > 0 ? resolve() : undefined);
        wake = check;
        check();
      });
    const pid = host.pid!;
    expect(Number.isSafeInteger(pid) && pid !== process.pid).toBe(true);
    await next(() => host.ready);
    expect(failures).toEqual([]);
    const index = answers.find((a) => a.type === 'index' && a.stage !== 'overview') as Extract<
      FromWorker,
      { type: 'index' }
    >;
    expect(index.index.count).toBe(repeated(2000).count);
    // Typed arrays cross the channel as typed arrays.
    expect(index.index.laneStart).toBeInstanceOf(Int32Array);
    const lanes = index.index.lanes.map((l) => l.id);
    host.query({
      type: 'lod',
      id: 7,
      request: { startNs: index.index.startNs, endNs: index.index.endNs, buckets: 100, lanes },
    });
    await next(() => answers.some((a) => a.type === 'lod' && a.id === 7));
    const lod = answers.find((a) => a.type === 'lod' && a.id === 7) as Extract<FromWorker, { type: 'lod' }>;
    expect(Array.from(lod.result.totals.count).reduce((s, n) => s + n, 0)).toBe(index.index.count);
    // Its memory is its own, readable while it runs.
    expect(processMemory(pid)!.peakMb).toBeGreaterThan(0);
    host.dispose();
    await until('the engine to end', () => ended(pid));
    expect(failures).toEqual([]);
  });

  it('a file it cannot open is one failure that names it, and the engine ends', async () => {
    const missing = join(dir, 'missing.sdmatl');
    let pid = 0;
    const failure = await new Promise<string>((resolve) => {
      const host = new TimelineEngineHost({
        bundle,
        file: missing,
        meta: META,
        onAnswer: () => {},
        onFailure: resolve,
      });
      pid = host.pid!;
    });
    expect(failure).toContain('missing.sdmatl');
    await until('the engine to end', () => ended(pid));
  });

  it('an engine that crashes is said with its exit and the end of its stderr, control characters escaped', async () => {
    const crash = standIn('crash.js', "process.stderr.write('out of memory\\u001b[31m here\\n'); process.exit(7);");
    const failure = await new Promise<string>((resolve) => {
      new TimelineEngineHost({ bundle: crash, file, meta: META, onAnswer: () => {}, onFailure: resolve });
    });
    expect(failure).toBe('the timeline engine stopped (exit code 7): out of memory\\x1b[31m here');
    expect(failure).not.toContain('\u001b');
  });

  it('an engine killed by a signal is said with 128 + its number', async () => {
    const killed = standIn('killed.js', "process.kill(process.pid, 'SIGKILL');");
    const failure = await new Promise<string>((resolve) => {
      new TimelineEngineHost({ bundle: killed, file, meta: META, onAnswer: () => {}, onFailure: resolve });
    });
    expect(failure).toMatch(/exit code 137/);
  });

  it("gets none of the host's Node options, and is told the readers asked for", async () => {
    const report = standIn(
      'report.js',
      `process.on('message', () => process.send({ type: 'failed', message: JSON.stringify({
        nodeOptions: process.env.NODE_OPTIONS ?? null, caCerts: process.env.NODE_EXTRA_CA_CERTS ?? null, execArgv: process.execArgv,
        readers: process.env.${ENGINE_PROCESS_ENV}, node: process.env.ELECTRON_RUN_AS_NODE }) }));`,
    );
    const marker = join(dir, 'preloaded');
    const preload = standIn('preload.js', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');`);
    const saved = { options: process.env.NODE_OPTIONS, certs: process.env.NODE_EXTRA_CA_CERTS };
    process.env.NODE_OPTIONS = `--require ${preload}`;
    process.env.NODE_EXTRA_CA_CERTS = join(dir, 'certs.pem');
    let message: string;
    try {
      message = await new Promise<string>((resolve) => {
        const link = startEngineProcess(report, 2);
        link.on('message', (m) => {
          if (m.type === 'failed') resolve(m.message);
          void link.terminate();
        });
        link.postMessage({ type: 'open', file, meta: META });
      });
    } finally {
      if (saved.options === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved.options;
      if (saved.certs === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = saved.certs;
    }
    expect(JSON.parse(message)).toEqual({ nodeOptions: null, caCerts: null, execArgv: [], readers: '2', node: '1' });
    expect(existsSync(marker)).toBe(false);
  });

  it('ends by itself when its host goes away (its channel closes)', async () => {
    // A host of its own that starts the real engine, says its pid, and exits at once.
    const host = standIn(
      'host.js',
      `const { fork } = require('node:child_process');
       const engine = fork(${JSON.stringify(bundle)}, [], { env: { ...process.env, ${ENGINE_PROCESS_ENV}: '0' }, stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced' });
       process.stdout.write(String(engine.pid), () => process.exit(0));`,
    );
    const child = fork(host, [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => child.once('exit', r));
    const pid = Number(out);
    expect(Number.isSafeInteger(pid) && pid > 0).toBe(true);
    await until('the orphaned engine to end', () => ended(pid));
  });
});
