/** Files written into a run folder (the timeline's trace export): new file, renamed into place; links and special files refused. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeNewFile } from '../../src/core/runs/newFile';
import { RunFileError } from '../../src/core/runs/runStore';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-newfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeNewFile', () => {
  it('writes the chunks, replaces a regular file, and leaves nothing beside it', async () => {
    const file = join(dir, 'timeline.sdmatl.trace.json');
    writeFileSync(file, 'old');
    await writeNewFile(file, ['{"a":', '1}']);
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}');
    expect(readdirSync(dir)).toEqual(['timeline.sdmatl.trace.json']);
  });

  it('refuses a link at the name and leaves its target as it was', async () => {
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'keep me');
    const file = join(dir, 'timeline.sdmatl.trace.json');
    symlinkSync(target, file);
    await expect(writeNewFile(file, ['overwritten'])).rejects.toThrow(RunFileError);
    await expect(writeNewFile(file, ['overwritten'])).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(readdirSync(dir).sort()).toEqual(['precious.txt', 'timeline.sdmatl.trace.json']);
  });

  it('refuses a FIFO at the name without blocking on it', async () => {
    const file = join(dir, 'trace.json');
    execFileSync('mkfifo', [file]);
    const started = performance.now();
    await expect(writeNewFile(file, ['x'])).rejects.toThrow(/not a regular file/);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a failure halfway leaves the old file whole and no partial file', async () => {
    const file = join(dir, 'trace.json');
    writeFileSync(file, 'old and whole');
    function* chunks() {
      yield 'half';
      throw new Error('the disk went away');
    }
    await expect(writeNewFile(file, chunks())).rejects.toThrow('the disk went away');
    expect(readFileSync(file, 'utf8')).toBe('old and whole');
    expect(readdirSync(dir)).toEqual(['trace.json']);
  });
});
