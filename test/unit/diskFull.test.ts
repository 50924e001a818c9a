/**
 * A full disk under the runs folder: the session stops the helper (its whole process group),
 * keeps whole lines only and ends the run as an error that names the folder. First on a real
 * 64 KiB tmpfs (mounting one needs root), then on /dev/full standing in for the run file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunHeader } from '../../src/core/run';
import { RunStore, RunWriter } from '../../src/core/runs/runStore';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { runSession } from '../../src/core/runtime/session';
import { waitUntilGone } from '../support/process';
import { header, hello, sample } from '../support/records';

let dir: string;
let mounted: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-full-'));
});
afterEach(() => {
  if (mounted) execFileSync('umount', [mounted]);
  mounted = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function tryMountTmpfs(at: string): boolean {
  mkdirSync(at, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', at], { stdio: 'ignore' });
    mounted = at;
    return true;
  } catch {
    return false;
  }
}
const canMount = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'sdma-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** A helper that prints hello, then samples without end (each write a few lines), and a grandchild that idles; both pids in a file. */
function endlessHelper(pidFile: string): RunHeader {
  const script = `
    const { spawn } = require('node:child_process');
    const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + g.pid);
    console.log(${JSON.stringify(JSON.stringify(hello))});
    const line = ${JSON.stringify(JSON.stringify(sample()))} + '\\n';
    setInterval(() => process.stdout.write(line.repeat(7)), 2);`;
  return { ...header(), helper: { path: process.execPath, args: ['-e', script] } };
}

async function expectAllGone(pidFile: string) {
  const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(await waitUntilGone(pid)).toBe(true);
}

/** Every line of the file is whole JSON: the header first, never a torn line. */
function wholeLines(file: string): unknown[] {
  const text = readFileSync(file, 'utf8');
  if (text.length > 0) expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

describe('a full disk under the runs folder', () => {
  it.runIf(canMount)(
    'on a real 64 KiB tmpfs: stops the helper, keeps whole lines, ends as an error naming the folder',
    async () => {
      const runs = join(dir, 'runs');
      expect(tryMountTmpfs(runs)).toBe(true);
      const pidFile = join(dir, 'pids');
      const store = new RunStore(runs);
      const t0 = performance.now();
      const run = await runSession({ target: new LocalTarget(), store, header: endlessHelper(pidFile) });
      const seconds = (performance.now() - t0) / 1000;
      expect(run.end?.status).toBe('error');
      expect(run.end?.message).toContain(`the disk holding ${join(runs, 'test-run')} is full (ENOSPC)`);
      expect(seconds).toBeLessThan(5); // the cancel path: SIGTERM, then SIGKILL after 2 s at most
      await expectAllGone(pidFile);
      const values = wholeLines(store.fileOf('test-run'));
      expect(values[0]).toMatchObject({ type: 'run', id: 'test-run' });
      expect(values.length).toBeGreaterThan(100); // most of 64 KiB held samples
      const reopened = await store.open('test-run');
      expect(reopened.problems).toEqual([]); // nothing torn
      expect(reopened.samples.length).toBe(values.filter((x) => (x as { type: string }).type === 'sample').length);
    },
  );

  it('on /dev/full as the run file: the run ends as an error at the first write, the helper is stopped', async () => {
    const pidFile = join(dir, 'pids');
    class DeviceFullStore extends RunStore {
      override create(h: RunHeader): RunWriter {
        super.create(h).close();
        return new RunWriter(this.fileOf(h.id), '/dev/full');
      }
    }
    const store = new DeviceFullStore(join(dir, 'runs'));
    const logs: string[] = [];
    const run = await runSession({
      target: new LocalTarget(),
      store,
      header: endlessHelper(pidFile),
      onLog: (level, m) => logs.push(`${level}: ${m}`),
    });
    expect(run.end?.status).toBe('error');
    expect(run.end?.message).toMatch(/^the disk holding .*test-run is full \(ENOSPC\): the helper was stopped/);
    expect(logs.join('\n')).toMatch(/error: run test-run: the disk holding .* stopping the helper/);
    await expectAllGone(pidFile);
    // Only the header reached the real file; the run says why it has nothing more.
    expect(wholeLines(store.fileOf('test-run'))).toHaveLength(1);
  });

  it('cuts a short write back to the last whole line', () => {
    const runs = join(dir, 'runs');
    if (!tryMountTmpfs(runs)) return; // needs a real small file system
    const w = new RunWriter(join(runs, 'f.ndjson'));
    const l = 'x'.repeat(999);
    let threw: unknown;
    try {
      for (let i = 0; i < 200; i++) {
        for (let j = 0; j < 3; j++) w.appendLine(l);
        w.flush();
      }
    } catch (err) {
      threw = err;
    }
    expect(String(threw)).toMatch(/is full \(ENOSPC\)/);
    const text = readFileSync(join(runs, 'f.ndjson'), 'utf8');
    expect(text.length % 1000).toBe(0);
    expect(text.length).toBeGreaterThan(0);
    w.close();
  });
});
