/**
 * Runs on disk: one folder per run holding `run.ndjson` (append-only: a header line, every
 * helper record as it arrived, then a `run-end` line) and any files the helper wrote for it,
 * such as a timeline. Appending as records arrive means a crash or kill of the helper loses
 * nothing already received; a corrupt line costs only that line.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import type { Run, RunEnd, RunHeader } from '../run';
import { RUN_FILE_NAME, RunHeaderSchema, applySavedValue, newRun, runStatus } from '../run';

export class RunFileError extends Error {}

const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Makes a sortable, file-system-safe id: 2026-11-30T01-02-03-456Z-sweep-sim-k3f9. */
export function makeRunId(command: string, backend: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const safe = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').slice(0, 16) || 'x';
  const suffix = Math.random().toString(36).slice(2, 6).padEnd(4, '0');
  return `${stamp}-${safe(command)}-${safe(backend)}-${suffix}`;
}

/** Appends lines to a run file. Writes are buffered until `flush()`, which callers invoke once per chunk received. */
export class RunWriter {
  private fd: number | undefined;
  private buffer: string[] = [];

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  appendLine(line: string): void {
    this.buffer.push(line, '\n');
  }

  appendValue(value: object): void {
    this.appendLine(JSON.stringify(value));
  }

  flush(): void {
    if (this.fd === undefined || this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
  }

  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface RunSummary {
  id: string;
  dir: string;
  header?: RunHeader;
  status: RunEnd['status'] | 'incomplete' | 'running' | 'corrupt';
  /** Why a corrupt run could not be read. */
  error?: string;
  bytes: number;
}

export class RunStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  dirOf(id: string): string {
    if (!RUN_ID.test(id) || id === '.' || id === '..') throw new RunFileError(`"${id}" is not a run id`);
    return join(this.root, id);
  }

  fileOf(id: string): string {
    return join(this.dirOf(id), RUN_FILE_NAME);
  }

  /** Creates the run's folder and writes its header; the writer then takes the records. */
  create(header: RunHeader): RunWriter {
    const dir = this.dirOf(header.id);
    mkdirSync(dir, { recursive: true });
    if (existsSync(join(dir, RUN_FILE_NAME))) throw new RunFileError(`run ${header.id} already exists`);
    const writer = new RunWriter(join(dir, RUN_FILE_NAME));
    writer.appendValue(header);
    writer.flush();
    return writer;
  }

  /** Lists runs, newest first. A folder whose file is unreadable is listed as corrupt, never thrown. */
  async list(): Promise<RunSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const summaries = await Promise.all(names.filter((n) => RUN_ID.test(n)).map((id) => this.summarize(id)));
    return summaries
      .filter((s): s is RunSummary => s !== undefined)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  private async summarize(id: string): Promise<RunSummary | undefined> {
    const dir = this.dirOf(id);
    const file = join(dir, RUN_FILE_NAME);
    try {
      if (!(await stat(dir)).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
    try {
      const { head, tail, bytes } = readEnds(file, 64 * 1024, 8 * 1024);
      const header = parseHeader(head.split('\n', 1)[0] ?? '', file);
      const run = newRun(header);
      const last = tail.trimEnd().split('\n').at(-1);
      if (last) {
        try {
          applySavedValue(run, JSON.parse(last));
        } catch {
          // A torn last line says the run did not end cleanly; status stays incomplete.
        }
      }
      return { id, dir, header, status: runStatus(run), bytes };
    } catch (err) {
      return { id, dir, status: 'corrupt', error: (err as Error).message, bytes: 0 };
    }
  }

  /** Reads a whole run. Throws RunFileError only when the header is unusable; bad lines become problems. */
  async open(id: string): Promise<Run> {
    return readRunFile(this.fileOf(id));
  }

  async delete(id: string): Promise<void> {
    await rm(this.dirOf(id), { recursive: true, force: true });
  }
}

export async function readRunFile(file: string): Promise<Run> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new RunFileError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const lines = text.split('\n');
  const run = newRun(parseHeader(lines[0] ?? '', file));
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim().length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      run.problems.push(`line ${i + 1} of ${RUN_FILE_NAME} is not valid JSON (cut off or damaged); skipped`);
      continue;
    }
    applySavedValue(run, value);
  }
  return run;
}

function parseHeader(line: string, file: string): RunHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RunFileError(`${file} does not start with a run header (not an SDMA Lens run, or damaged)`);
  }
  const header = v.safeParse(RunHeaderSchema, value);
  if (!header.success) {
    throw new RunFileError(`${file} has an unreadable run header: ${header.issues[0].message}`);
  }
  return header.output;
}

function readEnds(file: string, headBytes: number, tailBytes: number): { head: string; tail: string; bytes: number } {
  const fd = openSync(file, 'r');
  try {
    const bytes = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(headBytes, bytes));
    readSync(fd, head, 0, head.length, 0);
    const tailLen = Math.min(tailBytes, bytes);
    const tail = Buffer.alloc(tailLen);
    readSync(fd, tail, 0, tailLen, bytes - tailLen);
    return { head: head.toString('utf8'), tail: tail.toString('utf8'), bytes };
  } finally {
    closeSync(fd);
  }
}
