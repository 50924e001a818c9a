/**
 * Which tool wrote a file, from its content alone (never its name): TransferBench text or CSV,
 * nvbandwidth text or JSON, nccl-tests / rccl-tests text or JSON, a rocpd (SQLite) database,
 * a run file of SDMA Lens itself (nothing to import: it is opened as a run), or nothing this
 * importer knows. JSON is parsed once here and handed on.
 */
import { RUN_FORMAT } from '../run';
import type { NcclFamily } from './ncclTestsOutput';
import { isNcclTestsJson, isNcclTestsText, ncclJsonTool, ncclTextTool } from './ncclTestsOutput';
import { isNvbandwidthJson, isNvbandwidthText } from './nvbandwidth';
import { isTransferBenchText, transferBenchFormat } from './transferBench';

export type DetectedFormat =
  | { tool: 'TransferBench'; format: 'text' | 'csv' }
  | { tool: 'nvbandwidth'; format: 'text' }
  | { tool: 'nvbandwidth'; format: 'json'; json: unknown }
  | { tool: NcclFamily; format: 'text' }
  | { tool: NcclFamily; format: 'json'; json: unknown }
  | { tool: 'rocpd'; format: 'sqlite' }
  /** A run.ndjson: its header's id and command when they are well formed. */
  | { tool: 'sdma-lens'; format: 'run'; id?: string; command?: string }
  | { tool: 'unknown'; reason: string };

/** The first bytes of every SQLite 3 database file, rocpd's included. */
const SQLITE_MAGIC = 'SQLite format 3\u0000';

export function isSqlite(head: Uint8Array): boolean {
  return head.length >= SQLITE_MAGIC.length && [...SQLITE_MAGIC].every((c, i) => head[i] === c.charCodeAt(0));
}

export function detectFormat(content: Uint8Array): DetectedFormat {
  if (isSqlite(content)) return { tool: 'rocpd', format: 'sqlite' };
  if (content.length === 0) return { tool: 'unknown', reason: 'the file is empty' };
  if (content.includes(0))
    return { tool: 'unknown', reason: 'the file is binary (it holds NUL bytes) and not an SQLite database' };
  return detectText(new TextDecoder('utf-8', { fatal: false }).decode(content));
}

/** A run file's first line is its header: `{"type": "run", "format": "sdma-lens-run", ...}` (docs/PROTOCOL.md). */
function runFileHeader(trimmed: string): Extract<DetectedFormat, { tool: 'sdma-lens' }> | undefined {
  if (!trimmed.startsWith('{')) return undefined;
  const end = trimmed.indexOf('\n');
  let header: unknown;
  try {
    header = JSON.parse(end < 0 ? trimmed : trimmed.slice(0, end));
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null) return undefined;
  const h = header as Record<string, unknown>;
  if (h.type !== 'run' || h.format !== RUN_FORMAT) return undefined;
  const word = (x: unknown) => (typeof x === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(x) ? x : undefined);
  const id = word(h.id);
  const command = word(h.command);
  return {
    tool: 'sdma-lens',
    format: 'run',
    ...(id !== undefined ? { id } : {}),
    ...(command !== undefined ? { command } : {}),
  };
}

export function detectText(text: string): DetectedFormat {
  const trimmed = text.trimStart();
  const run = runFileHeader(trimmed);
  if (run) return run;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      return {
        tool: 'unknown',
        reason: `it starts like JSON but does not parse (${(err as Error).message}); a JSON file of nccl-tests or nvbandwidth that was cut off?`,
      };
    }
    if (isNvbandwidthJson(json)) return { tool: 'nvbandwidth', format: 'json', json };
    if (isNcclTestsJson(json)) return { tool: ncclJsonTool(json), format: 'json', json };
    return {
      tool: 'unknown',
      reason:
        'a JSON file, but neither nvbandwidth -j output (an "nvbandwidth" object) nor nccl-tests -J output ("config" and "results")',
    };
  }
  if (isTransferBenchText(text)) return { tool: 'TransferBench', format: transferBenchFormat(text) };
  if (isNvbandwidthText(text)) return { tool: 'nvbandwidth', format: 'text' };
  if (isNcclTestsText(text)) return { tool: ncclTextTool(text), format: 'text' };
  return {
    tool: 'unknown',
    reason:
      'not the output of TransferBench, nvbandwidth, nccl-tests or rccl-tests (no header or result line of theirs was found)',
  };
}
