/**
 * `sdma-lens import FILE` and "Import Results": a file another tool wrote becomes a saved run
 * through the same RunStore as a measured one. The file is read here (a regular file, not a
 * link or a FIFO, at most 64 MiB), recognized by its content, parsed, and written whole: the
 * header with its `source`, a topology, the samples or collective points, a note per part that
 * did not map, `done`, and a `run-end`. A rocprofv3 profile (a rocpd database or a CSV folder)
 * is the helper's to read: the caller is told so and runs `sdma-probe import` as before.
 */
import { lstat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { HelperRecord } from '../protocol';
import { validateRecord } from '../protocol';
import type { Run, RunEnd, RunHeader } from '../run';
import { runHeader } from '../run';
import type { RunStore } from '../runs/runStore';
import { RunFileError, makeRunId } from '../runs/runStore';
import { FILE_KINDS, SafeFileError, readSafeFile } from '../runs/safeFile';
import { detectFormat } from './detect';
import type { ImportedRun } from './importedRun';
import { parseNcclTestsJson, parseNcclTestsText } from './ncclTestsOutput';
import type { NvbandwidthOptions } from './nvbandwidth';
import { parseNvbandwidthJson, parseNvbandwidthText } from './nvbandwidth';
import { parseTransferBench } from './transferBench';

/** The most an import reads: far above any of these tools' outputs, far below what would strain memory (the `import` row of FILE_KINDS). */
export const IMPORT_MAX_BYTES = FILE_KINDS.import.maxBytes;

/** `sdma-lens-run`: the file is a run file of SDMA Lens itself, to be opened as a run, not imported. */
export type ImportFailure =
  'missing' | 'refused' | 'unknown-format' | 'sdma-lens-run' | 'nothing-imported' | 'unreadable';

/** Why a file was not imported; nothing was saved for it. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly failure: ImportFailure,
    message: string,
  ) {
    super(message);
  }
}

export type ImportOptions = NvbandwidthOptions;

export type ImportOutcome =
  /** A rocprofv3 profile: the helper reads it (`sdma-probe import --rocpd | --rocprofv3-csv`). */
  | { kind: 'helper'; path: string; what: 'rocpd' | 'rocprofv3-csv' }
  | { kind: 'imported'; run: Run; imported: ImportedRun };

/** Reads, recognizes and parses one file; saves its run. Throws ImportError when nothing is saved. */
export async function importResults(
  path: string,
  store: RunStore,
  options: ImportOptions = {},
): Promise<ImportOutcome> {
  const started = Date.now();
  const content = await readImportFile(path);
  if (content === 'folder') return { kind: 'helper', path, what: 'rocprofv3-csv' };
  const imported = parseImport(content, basename(path), options);
  if (imported === 'rocpd') return { kind: 'helper', path, what: 'rocpd' };
  return {
    kind: 'imported',
    imported,
    run: await saveImportedRun(imported, store, { elapsedMs: Date.now() - started }),
  };
}

/** The file's content, or "folder" for a directory (rocprofv3's CSV output). Links, FIFOs, devices, sockets and files over 64 MiB are refused (safeFile.ts). */
export async function readImportFile(path: string): Promise<Uint8Array | 'folder'> {
  try {
    if ((await lstat(path)).isDirectory()) return 'folder';
    return await readSafeFile(path, 'import');
  } catch (err) {
    if (err instanceof SafeFileError)
      throw new ImportError(path, err.problem === 'too-big' ? 'refused' : err.problem, err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ImportError(path, 'missing', `${path} does not exist`);
    throw new ImportError(path, 'unreadable', `cannot read ${path}: ${(err as Error).message}`);
  }
}

/** The run a file's content describes, or "rocpd" for an SQLite database (the helper's). Throws ImportError for a format it does not know. */
export function parseImport(content: Uint8Array, fileName: string, options: ImportOptions = {}): ImportedRun | 'rocpd' {
  const detected = detectFormat(content);
  if (detected.tool === 'rocpd') return 'rocpd';
  if (detected.tool === 'unknown')
    throw new ImportError(
      fileName,
      'unknown-format',
      `${fileName}: no known format: ${detected.reason}; nothing was saved`,
    );
  if (detected.tool === 'sdma-lens')
    throw new ImportError(fileName, 'sdma-lens-run', runFileSentence(fileName, detected));
  const text = () => new TextDecoder('utf-8').decode(content);
  switch (detected.tool) {
    case 'TransferBench':
      return parseTransferBench(text(), fileName);
    case 'nvbandwidth':
      return detected.format === 'json'
        ? parseNvbandwidthJson(detected.json, fileName, options)
        : parseNvbandwidthText(text(), fileName, options);
    case 'nccl-tests':
    case 'rccl-tests':
      return detected.format === 'json'
        ? parseNcclTestsJson(detected.json, fileName)
        : parseNcclTestsText(text(), fileName);
  }
}

/** What an SDMA Lens run file given to import is, and what to do with it instead. */
function runFileSentence(fileName: string, run: { id?: string; command?: string }): string {
  const what = run.id !== undefined ? ` (run ${run.id}${run.command !== undefined ? `, ${run.command}` : ''})` : '';
  return `${fileName} is an SDMA Lens run file${what}, not another tool's output; nothing was imported or saved. Open it as a run instead: in VS Code, Open Run (the file's Explorer menu, or the Runs view); in the CLI, its id with --runs-dir DIR (DIR: the folder holding its run folder) in sdma-lens runs, advise or compare`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "TransferBench v1.52", "nccl-tests 2.19.6"; the tool alone when its output prints no version. */
export function sourceName(source: NonNullable<RunHeader['source']>): string {
  return `${source.tool}${source.version ? ` ${source.version}` : ''}`;
}

/** What an import holds, in the words of its command: "12 samples", "14 collective points". */
export function importedCount(imported: ImportedRun): string {
  return imported.command === 'sweep'
    ? plural(imported.samples.length, 'sample')
    : plural(imported.collectives.length, 'collective point');
}

/**
 * Writes the run: header, records, run-end, all validated against the protocol first. A file
 * with nothing to import saves nothing (ImportError); a write that fails leaves no half run.
 */
export async function saveImportedRun(
  imported: ImportedRun,
  store: RunStore,
  o: { now?: Date; elapsedMs?: number } = {},
): Promise<Run> {
  const { source } = imported;
  const points = imported.command === 'sweep' ? imported.samples : imported.collectives;
  if (points.length === 0) {
    const why = imported.unmappedWhy.map((w) => `${plural(w.parts, 'part')}: ${w.why}`).join('; ');
    throw new ImportError(
      source.file,
      'nothing-imported',
      `${source.file}: ${sourceName(source)} ${source.format} output, but nothing in it maps to SDMA Lens ${imported.command === 'sweep' ? 'samples' : 'collective points'}${why ? ` (${why})` : ''}; nothing was saved`,
    );
  }
  const now = o.now ?? new Date();
  const id = makeRunId('import', source.tool, now);
  const header: RunHeader = { ...runHeader(id, imported.command, '', []), createdAt: now.toISOString(), source };
  const records: HelperRecord[] = [
    ...(imported.topology ? [imported.topology] : []),
    ...(imported.command === 'collective' ? imported.variants : []),
    ...points,
    ...imported.notes,
    { type: 'done', status: 'ok', samples: points.length, elapsedMs: o.elapsedMs ?? 0 },
  ];
  for (const r of records) {
    const checked = validateRecord(r);
    if (checked.kind !== 'record')
      throw new Error(
        `the ${source.tool} importer made a record the protocol refuses (${checked.kind === 'malformed' ? checked.reason : checked.type}); nothing was saved`,
      );
  }
  const unmapped = imported.unmappedWhy.reduce((n, w) => n + w.parts, 0);
  const end: RunEnd = {
    type: 'run-end',
    status: 'ok',
    exitCode: null,
    signal: null,
    message: `imported ${importedCount(imported)} from ${sourceName(source)} (${source.file})${unmapped > 0 ? `; ${plural(unmapped, 'part')} of it did not map and ${unmapped === 1 ? 'is' : 'are'} kept as notes` : ''}`,
    endedAt: new Date().toISOString(),
  };
  const writer = store.create(header);
  try {
    for (const r of records) writer.appendValue(r);
    writer.flush();
    if (!writer.appendLast(end)) throw writer.failed ?? new RunFileError(`could not write the end of run ${id}`);
    writer.close();
  } catch (err) {
    try {
      writer.close();
    } catch {
      // the failure below is the one to report
    }
    await store.delete(id);
    throw err;
  }
  return store.open(id);
}
