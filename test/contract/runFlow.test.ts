/**
 * The core run flow (src/core/runtime/runFlow.ts) with the real helper on this machine: what
 * is saved when a run is cancelled before it starts or while it runs, a backend the helper
 * lacks, arguments the helper refuses, and a file the command writes reaching the run folder.
 * The same flow over SSH is in test/ssh/remote.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { HelperError, parseVersionLine } from '../../src/core/runtime/helper';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import type { HelperCommand, HelperProvider } from '../../src/core/runtime/runFlow';
import { runHelperCommand } from '../../src/core/runtime/runFlow';
import { readTimelineFile } from '../../src/core/timeline/timelineFile';
import { helper } from './run';

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-runflow-'));
  store = new RunStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The real helper, with the backends its --version names. */
function realHelper(): HelperProvider & { asked: number } {
  const version = parseVersionLine(helper(['--version']).lines[0] ?? '');
  if (!version) throw new Error('the helper did not answer --version');
  const provider = {
    asked: 0,
    helperFor: async () => {
      provider.asked++;
      return { path: inject('helperPath'), backends: version.backends, source: 'bundled' };
    },
    forget: () => {},
  };
  return provider;
}

const sweep = (extra: string[] = []): HelperCommand => ({
  command: 'sweep',
  idTag: 'sim',
  backend: 'sim',
  args: () => ['sweep', '--backend', 'sim', '--sizes', '4K,64K', '--cus', '8', '--iters', '2', ...extra],
});

describe('run flow on this machine', () => {
  it('a run cancelled before it starts asks for no helper, starts nothing and saves nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const helpers = realHelper();
    let started = false;
    const result = await runHelperCommand(sweep(), {
      target: new LocalTarget(),
      helpers,
      store,
      signal: controller.signal,
      onStart: () => (started = true),
    });
    expect(result).toEqual({ kind: 'not-started' });
    expect(helpers.asked).toBe(0);
    expect(started).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run cancelled while its helper is found starts nothing', async () => {
    const controller = new AbortController();
    const provider = realHelper();
    const helpers: HelperProvider = {
      helperFor: async () => {
        const found = await provider.helperFor(new LocalTarget());
        controller.abort();
        return found;
      },
      forget: () => {},
    };
    const result = await runHelperCommand(sweep(), {
      target: new LocalTarget(),
      helpers,
      store,
      signal: controller.signal,
    });
    expect(result.kind).toBe('not-started');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run cancelled while it runs ends cancelled and keeps what arrived', async () => {
    const controller = new AbortController();
    const result = await runHelperCommand(sweep(['--sim-delay-ms', '200']), {
      target: new LocalTarget(),
      helpers: realHelper(),
      store,
      signal: controller.signal,
      onRecord: (run) => {
        if (run.samples.length === 1) controller.abort();
      },
    });
    if (result.kind !== 'ended') throw new Error(`the run did not end: ${result.kind}`);
    expect(result.run.end?.status).toBe('cancelled');
    expect(result.run.samples.length).toBeGreaterThanOrEqual(1);
    expect((await store.open(result.run.header.id)).samples.length).toBe(result.run.samples.length);
  });

  it('a backend the helper was built without is refused before anything starts, with what to do', async () => {
    const helpers = realHelper();
    const built = parseVersionLine(helper(['--version']).lines[0] ?? '')?.backends ?? [];
    const missing = ['hip', 'cuda'].find((b) => !built.includes(b));
    if (!missing) throw new Error('this helper has every backend: the check has nothing to refuse');
    const error = await runHelperCommand(
      { ...sweep(), backend: missing },
      { target: new LocalTarget(), helpers, store },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HelperError);
    expect((error as HelperError).message).toContain(`has no ${missing} backend`);
    expect((error as HelperError).remedy).toMatch(/choose "auto" or "sim"/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("arguments the helper refuses keep no run and say the helper's reason", async () => {
    const result = await runHelperCommand(sweep(['--iters', 'many']), {
      target: new LocalTarget(),
      helpers: realHelper(),
      store,
    });
    expect(result.kind).toBe('refused');
    if (result.kind === 'refused') expect(result.message).toMatch(/--iters/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file the command writes is in the run folder afterwards; one it does not write is named as missing', async () => {
    const request: HelperCommand = {
      ...sweep(),
      produces: ['timeline.sdmatl', 'never-written.sdmatl'],
      args: (out) => [...sweep().args(out), '--timeline-size', '64K', '--timeline-out', out('timeline.sdmatl')],
    };
    const result = await runHelperCommand(request, { target: new LocalTarget(), helpers: realHelper(), store });
    if (result.kind !== 'ended') throw new Error(`the run did not end: ${result.kind}`);
    expect(result.run.end?.status, result.run.end?.message).toBe('ok');
    expect(result.missing).toEqual(['never-written.sdmatl']);
    const file = join(store.dirOf(result.run.header.id), 'timeline.sdmatl');
    expect(existsSync(file)).toBe(true);
    expect(readTimelineFile(new Uint8Array(readFileSync(file))).count).toBeGreaterThan(0);
  });

  it('a command may only name the files it declares', async () => {
    const request: HelperCommand = {
      ...sweep(),
      produces: ['a.sdmatl'],
      args: (out) => ['sweep', '--timeline-out', out('b.sdmatl')],
    };
    await expect(
      runHelperCommand(request, { target: new LocalTarget(), helpers: realHelper(), store }),
    ).rejects.toThrow(/does not declare the file b\.sdmatl/);
  });
});
