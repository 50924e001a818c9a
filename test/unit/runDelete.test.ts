/**
 * Delete Run (RunStore.delete, the one deletion the Runs view, the Delete Run command and an
 * import that failed use): only the names SDMA Lens writes in a run folder are removed, the
 * folder only when that empties it, never a folder that is not a run, never through a link,
 * never outside the runs folder. What the user put there stays and is named.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunFileError, RunStore } from '../../src/core/runs/runStore';
import { timelineFileName } from '../../src/core/runs/timelineSource';
import { done, header, hello } from '../support/records';

let root = '';
let outside = '';
let store: RunStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sdma-delete-'));
  outside = mkdtempSync(join(tmpdir(), 'sdma-outside-'));
  store = new RunStore(root);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function save(s: RunStore, id: string): string {
  const w = s.create(header(id));
  w.appendValue(hello);
  w.appendValue(done);
  w.close();
  return s.dirOf(id);
}

/** Every kind of file SDMA Lens writes in a run folder, each where the product puts it. */
function productFiles(dir: string): string[] {
  const point = timelineFileName({ sizeBytes: 4096, path: 'cu/host', cus: 8 });
  const pairPoint = timelineFileName({ sizeBytes: 1024 ** 2, path: 'engine/device', cus: 0, src: -1, dst: 0 });
  const files = [
    'timeline.sdmatl',
    point,
    pairPoint,
    'timeline.trace.json',
    point.replace(/\.sdmatl$/, '.trace.json'),
    'run-timeline.trace.json',
    'timeline.trace.json.0123456789ab.part',
    'timeline.sdmatl.part',
  ];
  for (const f of files) writeFileSync(join(dir, f), 'x');
  // Refinement rounds and point recordings: runs of their own inside the run folder.
  save(new RunStore(join(dir, 'refinements')), 'round-1');
  const rec = save(new RunStore(join(dir, 'timelines')), 'rec-1');
  writeFileSync(join(rec, point), 'x');
  return files;
}

describe('Delete Run', () => {
  it('removes every file SDMA Lens wrote and then the empty folder', async () => {
    const dir = save(store, 'r');
    productFiles(dir);
    const outcome = await store.delete('r');
    expect(outcome.kept).toEqual([]);
    expect(outcome.folderRemoved).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(outcome.removed).toEqual(
      expect.arrayContaining([
        'run.ndjson',
        'timeline.sdmatl',
        'run-timeline.trace.json',
        join('refinements', 'round-1', 'run.ndjson'),
        join('timelines', 'rec-1', 'run.ndjson'),
      ]),
    );
  });

  it('keeps a file and a folder the user put in the run folder, says which, and removes the rest', async () => {
    const dir = save(store, 'r');
    const files = productFiles(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'table.csv'), 'a,b\n');
    writeFileSync(join(dir, 'refinements', 'mine.txt'), 'mine too\n');
    const outcome = await store.delete('r');
    expect(outcome.kept.sort()).toEqual(['data', 'notes.txt', join('refinements', 'mine.txt')]);
    expect(outcome.folderRemoved).toBe(false);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'data', 'table.csv'), 'utf8')).toBe('a,b\n');
    expect(readFileSync(join(dir, 'refinements', 'mine.txt'), 'utf8')).toBe('mine too\n');
    expect(readdirSync(dir).sort()).toEqual(['data', 'notes.txt', 'refinements']);
    for (const f of files) expect(existsSync(join(dir, f))).toBe(false);
    // No run.ndjson left: it is no longer a run, so no longer listed or deletable.
    expect(await store.list()).toEqual([]);
    await expect(store.delete('r')).rejects.toThrow(
      /holds no run\.ndjson, so it is not an SDMA Lens run; nothing was deleted/,
    );
  });

  it('refuses .git, src and any folder without a run file, and leaves them whole', async () => {
    for (const d of ['.git', 'src']) {
      mkdirSync(join(root, d, 'objects'), { recursive: true });
      writeFileSync(join(root, d, 'HEAD'), 'ref\n');
      writeFileSync(join(root, d, 'timeline.sdmatl'), 'a product name, but not in a run\n');
      await expect(store.delete(d)).rejects.toThrow(RunFileError);
      await expect(store.delete(d)).rejects.toThrow(`${join(root, d)} holds no run.ndjson`);
      await expect(store.checkDeletable(d)).rejects.toThrow(/not an SDMA Lens run/);
      expect(readdirSync(join(root, d)).sort()).toEqual(['HEAD', 'objects', 'timeline.sdmatl']);
    }
  });

  it('never deletes through a link: a linked run folder, and the run behind it, stay', async () => {
    const target = save(new RunStore(outside), 'real');
    writeFileSync(join(target, 'timeline.sdmatl'), 'x');
    symlinkSync(target, join(root, 'linked'));
    await expect(store.delete('linked')).rejects.toThrow(
      `${join(root, 'linked')} is a symbolic link; SDMA Lens does not follow or delete links in a runs folder`,
    );
    expect(lstatSync(join(root, 'linked')).isSymbolicLink()).toBe(true);
    expect(readdirSync(target).sort()).toEqual(['run.ndjson', 'timeline.sdmatl']);
    await expect(store.open('linked')).rejects.toThrow(/symbolic link/);
  });

  it('removes a product-named link as a link: what it points to stays', async () => {
    const dir = save(store, 'r');
    writeFileSync(join(outside, 'precious.sdmatl'), 'keep me\n');
    symlinkSync(join(outside, 'precious.sdmatl'), join(dir, 'timeline.sdmatl'));
    // A refinements folder that is a link to elsewhere is not entered.
    mkdirSync(join(outside, 'rounds', 'x'), { recursive: true });
    writeFileSync(join(outside, 'rounds', 'x', 'run.ndjson'), 'theirs\n');
    symlinkSync(join(outside, 'rounds'), join(dir, 'refinements'));
    const outcome = await store.delete('r');
    expect(outcome.kept).toEqual(['refinements']);
    expect(readFileSync(join(outside, 'precious.sdmatl'), 'utf8')).toBe('keep me\n');
    expect(readFileSync(join(outside, 'rounds', 'x', 'run.ndjson'), 'utf8')).toBe('theirs\n');
    expect(existsSync(join(dir, 'timeline.sdmatl'))).toBe(false);
  });

  it('deletes nothing outside the runs folder: a runs folder set to a workspace keeps everything but the run', async () => {
    mkdirSync(join(root, '.vscode'));
    writeFileSync(join(root, '.vscode', 'settings.json'), '{"sdmaLens.runsFolder": "."}\n');
    writeFileSync(join(root, 'run.ndjson.md'), 'a user file with a similar name\n');
    save(store, 'r');
    await store.delete('r');
    expect(readdirSync(root).sort()).toEqual(['.vscode', 'run.ndjson.md']);
    for (const id of ['..', '.', '../x', `..${'/'}${'r'}`])
      await expect(store.delete(id)).rejects.toThrow(RunFileError);
  });
});
