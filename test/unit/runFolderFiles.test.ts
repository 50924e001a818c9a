/**
 * A run folder may come from anywhere (a repository, an archive), so its timeline can be a link
 * to /dev/zero, a FIFO, a huge sparse file, or a record naming /etc/passwd or ../../x. Each is
 * refused with a sentence, never read. The reads run in a child process under an address-space
 * limit and a timeout (limitedChild.ts): a regression fails here, it does not take the machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits';
import { RunStore } from '../../src/core/runs/runStore';
import { TIMELINE_MAGIC } from '../../src/core/timeline/timelineFile';
import type { ChildOutcome } from './limitedChild';
import { bundle, refusal, runLimited } from './limitedChild';
import { header, hello } from '../support/records';

const SLOW = 60_000;
const ID = 'r1';
let driver = '';
let work = '';
let root = '';
let runDir = '';

beforeAll(() => {
  driver = bundle(join(__dirname, 'fileDriver.ts'));
});
afterAll(() => rmSync(join(driver, '..'), { recursive: true, force: true }));

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sdma-runfiles-'));
  root = join(work, 'runs');
  runDir = join(root, ID);
  return () => rmSync(work, { recursive: true, force: true });
});

/** A valid sdmatl file of three (zeroed) events. */
function timelineBytes(): Buffer {
  const columns = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8].reduce((sum, w) => sum + Math.ceil((w * 3) / 8) * 8, 0);
  const data = Buffer.alloc(32 + columns);
  data.write(TIMELINE_MAGIC, 0, 'latin1');
  data.writeUInt32LE(1, 8);
  data.writeBigUInt64LE(3n, 16);
  return data;
}

/** A saved sweep whose timeline record names `path`. */
function saveRun(path: string): void {
  const w = new RunStore(root).create(header(ID));
  w.appendValue(hello);
  w.appendValue({
    type: 'timeline',
    path,
    format: 'sdmatl',
    version: 1,
    eventCount: 3,
    fileBytes: 100,
    sizeBytes: 1048576,
  });
  w.close();
}

const ownTimeline = (): ChildOutcome => runLimited(driver, { action: 'run-timeline', root, id: ID });

describe('a run folder`s timeline', () => {
  it(
    'reads a regular timeline in the run folder, also when the record names where it was first written',
    () => {
      saveRun('/where/the/runs/folder/was/r1/timeline.sdmatl');
      writeFileSync(join(runDir, 'timeline.sdmatl'), timelineBytes());
      expect(ownTimeline().result).toEqual({ ok: true, value: 3 });
    },
    SLOW,
  );

  it(
    'refuses /dev/zero linked as timeline.sdmatl, without reading it',
    () => {
      saveRun(join(runDir, 'timeline.sdmatl'));
      symlinkSync('/dev/zero', join(runDir, 'timeline.sdmatl'));
      expect(refusal(ownTimeline())).toBe(
        `${join(runDir, 'timeline.sdmatl')} is a symbolic link, not a regular file; refused (SDMA Lens reads only regular files in a run folder)`,
      );
      // A point's timeline and the .sdmatl editor read through the same function.
      const point = join(runDir, 'timeline-4K-cu-host-8.sdmatl');
      symlinkSync('/dev/zero', point);
      expect(refusal(runLimited(driver, { action: 'timeline-file', root, id: ID, file: point }))).toMatch(
        /timeline-4K-cu-host-8\.sdmatl is a symbolic link, not a regular file; refused/,
      );
    },
    SLOW,
  );

  it(
    'refuses a FIFO as timeline.sdmatl without blocking on it',
    () => {
      saveRun(join(runDir, 'timeline.sdmatl'));
      execFileSync('mkfifo', [join(runDir, 'timeline.sdmatl')]); // nobody writes to it: an open for reading would wait for ever
      expect(refusal(ownTimeline())).toMatch(/timeline\.sdmatl is a FIFO \(named pipe\), not a regular file; refused/);
    },
    SLOW,
  );

  it(
    'refuses a sparse timeline larger than any the helper writes, without reading it',
    () => {
      saveRun(join(runDir, 'timeline.sdmatl'));
      // The helper's largest timeline: 32 header bytes and 50 bytes of columns per event (sdmatl version 2, each column padded to 8).
      const largest =
        32 +
        [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8, 1].reduce(
          (sum, w) => sum + Math.ceil((w * LIMITS.timelineEventsMax) / 8) * 8,
          0,
        );
      writeFileSync(join(runDir, 'timeline.sdmatl'), timelineBytes());
      truncateSync(join(runDir, 'timeline.sdmatl'), largest + 1);
      expect(refusal(ownTimeline())).toMatch(
        /timeline\.sdmatl is larger than 2\.33 GiB, more than the helper writes for a timeline \(at most 50000000 events\); refused$/,
      );
    },
    SLOW,
  );

  it(
    'refuses a link inside the run folder to a timeline elsewhere',
    () => {
      saveRun(join(runDir, 'timeline.sdmatl'));
      writeFileSync(join(work, 'elsewhere.sdmatl'), timelineBytes());
      symlinkSync(join(work, 'elsewhere.sdmatl'), join(runDir, 'timeline.sdmatl'));
      expect(refusal(ownTimeline())).toMatch(/timeline\.sdmatl is a symbolic link, not a regular file; refused/);
    },
    SLOW,
  );

  it(
    'refuses a timeline record naming /etc/passwd: not an .sdmatl file, so not read',
    () => {
      saveRun('/etc/passwd');
      expect(refusal(ownTimeline())).toBe(
        `run ${ID}: its timeline record names /etc/passwd, which is not an .sdmatl timeline file; refused (SDMA Lens reads a run's timeline only from its run folder)`,
      );
    },
    SLOW,
  );

  it(
    'refuses a timeline record naming a file outside the run folder, absolute or ../../x, even a valid timeline',
    () => {
      writeFileSync(join(work, 'x.sdmatl'), timelineBytes());
      for (const named of [join(work, 'x.sdmatl'), '../../x.sdmatl']) {
        rmSync(root, { recursive: true, force: true });
        saveRun(named);
        expect(refusal(ownTimeline())).toBe(
          `run ${ID}: its timeline record names ${named}, outside the run folder ${runDir}, and the run folder holds no x.sdmatl; refused (SDMA Lens reads a run's timeline only from its run folder: copy the file there as x.sdmatl)`,
        );
      }
      // Whether a file exists outside is not told: a name that does not exist is refused the same way.
      rmSync(root, { recursive: true, force: true });
      saveRun('/nonexistent/x.sdmatl');
      expect(refusal(ownTimeline())).toMatch(/names \/nonexistent\/x\.sdmatl, outside the run folder .*; refused/);
    },
    SLOW,
  );
});

describe('a run file that is not a regular file', () => {
  it(
    'a FIFO as run.ndjson is listed as corrupt with the reason and refused by open, without blocking',
    () => {
      mkdirSync(runDir, { recursive: true });
      execFileSync('mkfifo', [join(runDir, 'run.ndjson')]);
      const listed = runLimited(driver, { action: 'list', root });
      expect(listed.result).toEqual({
        ok: true,
        value: [
          {
            id: ID,
            status: 'corrupt',
            error: `${join(runDir, 'run.ndjson')} is a FIFO (named pipe), not a regular file; refused (SDMA Lens reads only regular files in a run folder)`,
          },
        ],
      });
      expect(refusal(runLimited(driver, { action: 'open-run', root, id: ID }))).toMatch(
        /run\.ndjson is a FIFO \(named pipe\), not a regular file; refused/,
      );
    },
    SLOW,
  );

  it(
    '/dev/zero linked as run.ndjson is refused by open, without reading it',
    () => {
      mkdirSync(runDir, { recursive: true });
      symlinkSync('/dev/zero', join(runDir, 'run.ndjson'));
      expect(refusal(runLimited(driver, { action: 'open-run', root, id: ID }))).toMatch(
        /run\.ndjson is a symbolic link, not a regular file; refused/,
      );
    },
    SLOW,
  );
});
