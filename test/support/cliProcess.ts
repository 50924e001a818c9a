/**
 * The `sdma-lens` CLI as its own process, for tests of what a shell sees: bundled from
 * src/cli/bin.ts as the package ships it, its stdout written to a file, or piped into a slow
 * reader (a pager, a script that reads a little at a time) or one that goes away early.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const repo = resolve(__dirname, '../..');

/** Bundles the CLI into `dir`; returns the file to run with Node. */
export function bundleCli(dir: string): string {
  const cli = join(dir, 'cli.cjs');
  buildSync({
    entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
  });
  return cli;
}

/**
 * A reader for the far end of a pipe: it takes CHUNK bytes at a time with PAUSE ms before each
 * read and writes them to its stdout; with STOP > 0 it leaves (closing the pipe) once it has
 * that many bytes.
 */
const READER = `
const fs = require('node:fs');
const [chunk, pauseMs, stop] = process.argv.slice(2).map(Number);
const buf = Buffer.alloc(chunk);
const pause = new Int32Array(new SharedArrayBuffer(4));
let total = 0;
for (;;) {
  Atomics.wait(pause, 0, 0, pauseMs);
  let n;
  try {
    n = fs.readSync(0, buf, 0, chunk, null);
  } catch (err) {
    if (err.code === 'EAGAIN') continue;
    if (err.code === 'EOF') break;
    throw err;
  }
  if (n === 0) break;
  fs.writeSync(1, buf, 0, n);
  total += n;
  if (stop > 0 && total >= stop) process.exit(0);
}
`;

/** Writes the reader into `dir`; returns its file. */
export function slowReader(dir: string): string {
  const file = join(dir, 'slow-reader.cjs');
  writeFileSync(file, READER);
  return file;
}

export interface CliRun {
  /** The CLI's exit status (null: it was killed). */
  code: number | null;
  /** What reached the file, or what the reader received. */
  out: Buffer;
  err: string;
}

/** Seconds any of these commands may take on a loaded machine before it is killed (status 137). */
export const CLI_TIMEOUT_S = 180;

function status(file: string): number | null {
  let text = '';
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    // not written: the shell itself was killed
  }
  return text === '' ? null : Number(text);
}

const read = (file: string) => {
  try {
    return readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
};

/** The shell runs each Node under `timeout -s KILL`, and the CLI under `prlimit --as` when asked: a regression fails its test, not the machine. */
function shell(script: string, args: string[], env: Record<string, string>): void {
  const r = spawnSync('sh', ['-c', script, 'sh', ...args], {
    env: { ...process.env, NODE: process.execPath, LIMIT: String(CLI_TIMEOUT_S), ...env },
    timeout: (CLI_TIMEOUT_S + 30) * 1000,
    killSignal: 'SIGKILL',
  });
  if (r.error) throw r.error;
}

/**
 * `node CLI ARGS > file`: the whole output, as when nothing waits on it; under an address-space
 * limit (bytes, `prlimit --as`) when `addressSpace` is given.
 */
export function cliToFile(cli: string, args: string[], dir: string, o: { addressSpace?: number } = {}): CliRun {
  const [out, err, code] = ['to-file.out', 'to-file.err', 'to-file.status'].map((f) => join(dir, f)) as [
    string,
    string,
    string,
  ];
  const prlimit = o.addressSpace !== undefined ? `prlimit --as=${o.addressSpace} ` : '';
  shell(`timeout -s KILL "$LIMIT" ${prlimit}"$NODE" "$CLI" "$@" >"$OUT" 2>"$ERR"; echo $? >"$CODE"`, args, {
    CLI: cli,
    OUT: out,
    ERR: err,
    CODE: code,
  });
  return { code: status(code), out: read(out), err: read(err).toString('utf8') };
}

export interface ReaderPace {
  /** Bytes per read. */
  chunk: number;
  /** Milliseconds before each read. */
  pauseMs: number;
  /** Leave after this many bytes (0: read to the end). */
  stopAfter?: number;
}

/** `node CLI ARGS | slow-reader`: what the reader received, and the CLI's own exit status. */
export function cliThroughPipe(cli: string, reader: string, args: string[], dir: string, pace: ReaderPace): CliRun {
  const [out, err, code] = ['piped.out', 'piped.err', 'piped.status'].map((f) => join(dir, f)) as [
    string,
    string,
    string,
  ];
  const script =
    '{ timeout -s KILL "$LIMIT" "$NODE" "$CLI" "$@" 2>"$ERR"; echo $? >"$CODE"; } | timeout -s KILL "$LIMIT" "$NODE" "$READER" "$CHUNK" "$PAUSE" "$STOP" >"$OUT"';
  shell(script, args, {
    CLI: cli,
    READER: reader,
    OUT: out,
    ERR: err,
    CODE: code,
    CHUNK: String(pace.chunk),
    PAUSE: String(pace.pauseMs),
    STOP: String(pace.stopAfter ?? 0),
  });
  return { code: status(code), out: read(out), err: read(err).toString('utf8') };
}

/** A stack trace, a V8 fatal error or a crash report in what the CLI said. */
export const CRASH =
  /^\s+at .+[(:]\d+|FATAL ERROR|Segmentation fault|Aborted|std::bad_alloc|unexpected error|Unhandled 'error' event/m;
