/**
 * The one safe open (src/core/runs/safeFile.ts): its cap table, its refusals, and reads bounded by
 * the cap even for a file that reports no size and reads on (a /proc file) or one that is
 * larger than its fstat said. Reads that could run away run in a limited child (limitedChild.ts).
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FleetStore } from '../../src/core/fleetRun/fleetStore';
import { LIMITS } from '../../src/core/limits';
import {
  FILE_KINDS,
  SafeFileError,
  TIMELINE_MAX_BYTES,
  checkSafeFile,
  readSafeFile,
  readSafeFileSync,
} from '../../src/core/runs/safeFile';
import { bundle, refusal, runLimited } from './limitedChild';

const SLOW = 60_000;
let driver = '';
let dir = '';

beforeAll(() => {
  driver = bundle(join(__dirname, 'safeFileDriver.ts'));
});
afterAll(() => rmSync(join(driver, '..'), { recursive: true, force: true }));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-safefile-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('the cap table', () => {
  it('caps every kind read whole; the run file, read as a stream, has none', () => {
    for (const [kind, k] of Object.entries(FILE_KINDS)) {
      if (kind === 'run') expect(k.maxBytes).toBeUndefined();
      else expect(k.maxBytes, kind).toBeGreaterThan(0);
    }
    // The timeline's is the helper's largest file: header, and each of the 12 columns of sdmatl version 2 padded to 8 bytes.
    expect(TIMELINE_MAX_BYTES).toBe(32 + 50 * LIMITS.timelineEventsMax);
    expect(FILE_KINDS.import.maxBytes).toBe(64 * 1024 * 1024);
  });
});

describe('readSafeFile', () => {
  it('reads a regular file up to its cap, and refuses one byte more', async () => {
    const cap = FILE_KINDS.thresholds.maxBytes;
    const file = join(dir, 'thresholds.json');
    writeFileSync(file, Buffer.alloc(cap, 0x20));
    expect((await readSafeFile(file, 'thresholds')).length).toBe(cap);
    expect(readSafeFileSync(file, 'thresholds').length).toBe(cap);
    truncateSync(file, cap + 1);
    await expect(readSafeFile(file, 'thresholds')).rejects.toThrow(
      `${file} is larger than 1 MiB, more than a thresholds file can be; refused`,
    );
    expect(() => readSafeFileSync(file, 'thresholds')).toThrow(SafeFileError);
  });

  it("stops a read whose signal is aborted, with the signal's reason, and reads the whole file otherwise", async () => {
    const file = join(dir, 'timeline.sdmatl');
    writeFileSync(file, Buffer.alloc(4096, 7));
    const cancelled = new Error('cancelled');
    const before = new AbortController();
    before.abort(cancelled);
    await expect(readSafeFile(file, 'timeline', before.signal)).rejects.toBe(cancelled);
    // Aborted while open: the next read does not start.
    const during = new AbortController();
    let polls = 0;
    const signal = new Proxy(during.signal, {
      get(target, key) {
        if (key === 'throwIfAborted')
          return () => {
            if (++polls === 2) during.abort(cancelled);
            target.throwIfAborted();
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await expect(readSafeFile(file, 'timeline', signal)).rejects.toBe(cancelled);
    expect(polls).toBe(2);
    expect((await readSafeFile(file, 'timeline', new AbortController().signal)).length).toBe(4096);
  });

  it('names the file and the remedy for a link, a FIFO, a folder, a missing file', async () => {
    const link = join(dir, 'link');
    writeFileSync(join(dir, 'real'), 'x');
    symlinkSync(join(dir, 'real'), link);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(dir, 'folder'));
    await expect(readSafeFile(link, 'fleet-index')).rejects.toMatchObject({
      problem: 'refused',
      message: `${link} is a symbolic link, not a regular file; refused (SDMA Lens reads only regular files in a fleet folder)`,
    });
    await expect(checkSafeFile(fifo, 'timeline')).rejects.toMatchObject({
      problem: 'refused',
      message: `${fifo} is a FIFO (named pipe), not a regular file; refused (SDMA Lens reads only regular files in a run folder)`,
    });
    await expect(readSafeFile(join(dir, 'folder'), 'import')).rejects.toMatchObject({
      problem: 'refused',
      message: `${join(dir, 'folder')} is a folder, not a regular file; refused (import the file itself)`,
    });
    await expect(readSafeFile(join(dir, 'none'), 'import')).rejects.toMatchObject({
      problem: 'missing',
      message: `${join(dir, 'none')} does not exist`,
    });
    expect(() => readSafeFileSync('/dev/null', 'thresholds')).toThrow(
      '/dev/null is a device, not a regular file; refused (name the thresholds file itself)',
    );
  });

  // /proc/kallsyms says it has 0 bytes and reads megabytes: a read bounded by the fstat size would take 1 byte, one unbounded all.
  const kallsyms =
    statSync('/proc/kallsyms', { throwIfNoEntry: false })?.size === 0 &&
    readFileSync('/proc/kallsyms').length > FILE_KINDS.thresholds.maxBytes;
  it.skipIf(!kallsyms)(
    'stops at the cap on a file that reports no size and reads on (/proc/kallsyms), async and sync',
    () => {
      for (const sync of [false, true]) {
        expect(refusal(runLimited(driver, { file: '/proc/kallsyms', kind: 'thresholds', sync }))).toBe(
          '/proc/kallsyms is larger than 1 MiB, more than a thresholds file can be; refused',
        );
      }
    },
    SLOW,
  );

  it(
    'refuses a FIFO and /dev/zero behind a link without blocking or reading',
    () => {
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      symlinkSync('/dev/zero', join(dir, 'zero'));
      for (const sync of [false, true]) {
        expect(refusal(runLimited(driver, { file: fifo, kind: 'timeline', sync }))).toMatch(
          /is a FIFO \(named pipe\), not a regular file; refused/,
        );
        expect(refusal(runLimited(driver, { file: join(dir, 'zero'), kind: 'import', sync }))).toMatch(
          /zero is a symbolic link, not a regular file; refused/,
        );
      }
    },
    SLOW,
  );
});

describe('the fleet index', () => {
  it('is read only from a fleet folder, not through a link to one elsewhere', () => {
    const runs = join(dir, 'runs');
    const fleets = new FleetStore(runs);
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'fleet.json'), '{}\n');
    mkdirSync(fleets.root);
    symlinkSync(elsewhere, join(fleets.root, 'f1'));
    expect(() => fleets.read('f1')).toThrow(
      `${join(fleets.root, 'f1')} is a symbolic link; SDMA Lens reads fleets only from folders in ${fleets.root}, never through links`,
    );
    mkdirSync(join(fleets.root, 'f2'));
    execFileSync('mkfifo', [join(fleets.root, 'f2', 'fleet.json')]);
    expect(() => fleets.read('f2')).toThrow(/fleet\.json is a FIFO \(named pipe\), not a regular file; refused/);
  });
});
