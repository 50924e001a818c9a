import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GITIGNORE_TEXT, writeRunsGitignore } from '../../src/core/runs/gitignore';
import { RunStore } from '../../src/core/runs/runStore';
import { header } from '../support/records';

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'sdma-gitignore-'));
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

/** Saves one run the way every command does: through RunStore.create. */
function saveRun(root: string, id: string): void {
  new RunStore(root).create(header(id)).close();
}

describe('.sdma-lens/.gitignore', () => {
  const lens = () => join(workspace, '.sdma-lens');
  const gitignore = () => join(lens(), '.gitignore');
  const runs = () => join(lens(), 'runs');

  it('is written with the first run saved into .sdma-lens/runs, `*` under a comment saying why', () => {
    expect(existsSync(gitignore())).toBe(false);
    saveRun(runs(), 'first');
    const text = readFileSync(gitignore(), 'utf8');
    expect(text).toBe(GITIGNORE_TEXT);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# .*SDMA Lens.*runs/);
    expect(lines.slice(1)).toEqual(['*']);
    expect(existsSync(join(runs(), 'first', 'run.ndjson'))).toBe(true);
  });

  it('is written once: the next runs leave it as the user edited or deleted it', () => {
    saveRun(runs(), 'first');
    writeFileSync(gitignore(), '# mine\n!runs/keep\n');
    saveRun(runs(), 'second');
    expect(readFileSync(gitignore(), 'utf8')).toBe('# mine\n!runs/keep\n');
    rmSync(gitignore());
    saveRun(runs(), 'third');
    expect(existsSync(gitignore())).toBe(false);
  });

  it('never overwrites a .gitignore that was there before the first run', () => {
    mkdirSync(lens());
    writeFileSync(gitignore(), 'runs/old\n');
    saveRun(runs(), 'first');
    expect(readFileSync(gitignore(), 'utf8')).toBe('runs/old\n');
    expect(writeRunsGitignore(runs())).toBe('exists');
  });

  it('refuses a link at that name and writes nothing through it, dangling or not', () => {
    mkdirSync(lens());
    const outside = join(workspace, 'outside');
    symlinkSync(outside, gitignore());
    saveRun(runs(), 'first');
    expect(existsSync(outside)).toBe(false);
    expect(lstatSync(gitignore()).isSymbolicLink()).toBe(true);
    expect(readlinkSync(gitignore())).toBe(outside);
    expect(writeRunsGitignore(runs())).toBe('refused');

    writeFileSync(outside, 'precious\n');
    expect(writeRunsGitignore(runs())).toBe('refused');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  it('refuses a folder at that name', () => {
    mkdirSync(gitignore(), { recursive: true });
    expect(writeRunsGitignore(runs())).toBe('refused');
    expect(lstatSync(gitignore()).isDirectory()).toBe(true);
  });

  it('writes none for a runs folder that is not inside a .sdma-lens folder', () => {
    const elsewhere = join(workspace, 'results', 'runs');
    saveRun(elsewhere, 'first');
    expect(existsSync(join(workspace, 'results', '.gitignore'))).toBe(false);
    expect(existsSync(join(elsewhere, '.gitignore'))).toBe(false);
    expect(writeRunsGitignore(elsewhere)).toBe('not-sdma-lens');
    const named = join(workspace, '.sdma-lens-old', 'runs');
    saveRun(named, 'first');
    expect(existsSync(join(workspace, '.sdma-lens-old', '.gitignore'))).toBe(false);
  });
});
