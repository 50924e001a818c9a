/**
 * Reads rocprofv3's CSV traces (`--kernel-trace`, `--memory-copy-trace`, `--rccl-trace`)
 * into plain records with nanosecond times. rocprofv3 sees only host-started work: kernel
 * dispatches and host calls to the copy APIs; device-initiated SDMA never appears here.
 */
import { csvRecords } from './csv';

export interface KernelDispatch {
  agentId: number;
  queueId: number;
  streamId: number;
  threadId: number;
  dispatchId: number;
  kernelId: number;
  name: string;
  correlationId: number;
  startNs: number;
  endNs: number;
  workgroupSize: [number, number, number];
  gridSize: [number, number, number];
}

export interface MemoryCopy {
  direction: string;
  streamId: number;
  srcAgentId: number;
  dstAgentId: number;
  correlationId: number;
  startNs: number;
  endNs: number;
  /** Present in newer rocprofv3 versions (`Bytes` column). */
  bytes?: number;
}

export interface RcclCall {
  function: string;
  processId: number;
  threadId: number;
  correlationId: number;
  startNs: number;
  endNs: number;
}

export class TraceFormatError extends Error {}

function need(rec: Record<string, string>, columns: readonly string[], file: string): void {
  const missing = columns.filter((c) => !(c in rec));
  if (missing.length > 0)
    throw new TraceFormatError(
      `${file}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (is this a rocprofv3 CSV?)`,
    );
}

/** Timestamps are integers of ns since boot: above 2^53 they would lose precision as numbers. */
function ns(text: string, column: string): number {
  if (!/^\d+$/.test(text)) throw new TraceFormatError(`${column} "${text}" is not a timestamp`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new TraceFormatError(`${column} ${text} is too large to read exactly`);
  return value;
}

const int = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : Number.NaN);

export function readKernelTrace(text: string, file = 'kernel_trace.csv'): KernelDispatch[] {
  const rows = csvRecords(text);
  if (rows.length > 0)
    need(rows[0]!, ['Kernel_Name', 'Start_Timestamp', 'End_Timestamp', 'Agent_Id', 'Dispatch_Id'], file);
  return rows.map((r) => ({
    agentId: int(r.Agent_Id!),
    queueId: int(r.Queue_Id ?? ''),
    streamId: int(r.Stream_Id ?? ''),
    threadId: int(r.Thread_Id ?? ''),
    dispatchId: int(r.Dispatch_Id!),
    kernelId: int(r.Kernel_Id ?? ''),
    name: r.Kernel_Name!,
    correlationId: int(r.Correlation_Id ?? ''),
    startNs: ns(r.Start_Timestamp!, 'Start_Timestamp'),
    endNs: ns(r.End_Timestamp!, 'End_Timestamp'),
    workgroupSize: [int(r.Workgroup_Size_X ?? ''), int(r.Workgroup_Size_Y ?? ''), int(r.Workgroup_Size_Z ?? '')],
    gridSize: [int(r.Grid_Size_X ?? ''), int(r.Grid_Size_Y ?? ''), int(r.Grid_Size_Z ?? '')],
  }));
}

export function readMemoryCopyTrace(text: string, file = 'memory_copy_trace.csv'): MemoryCopy[] {
  const rows = csvRecords(text);
  if (rows.length > 0)
    need(rows[0]!, ['Direction', 'Start_Timestamp', 'End_Timestamp', 'Source_Agent_Id', 'Destination_Agent_Id'], file);
  return rows.map((r) => ({
    direction: r.Direction!.replace(/^MEMORY_COPY_/, ''),
    streamId: int(r.Stream_Id ?? ''),
    srcAgentId: int(r.Source_Agent_Id!),
    dstAgentId: int(r.Destination_Agent_Id!),
    correlationId: int(r.Correlation_Id ?? ''),
    startNs: ns(r.Start_Timestamp!, 'Start_Timestamp'),
    endNs: ns(r.End_Timestamp!, 'End_Timestamp'),
    ...(r.Bytes !== undefined && /^\d+$/.test(r.Bytes) ? { bytes: Number(r.Bytes) } : {}),
  }));
}

export function readRcclTrace(text: string, file = 'rccl_trace.csv'): RcclCall[] {
  const rows = csvRecords(text);
  if (rows.length > 0) need(rows[0]!, ['Function', 'Start_Timestamp', 'End_Timestamp'], file);
  return rows.map((r) => ({
    function: r.Function!,
    processId: int(r.Process_Id ?? ''),
    threadId: int(r.Thread_Id ?? ''),
    correlationId: int(r.Correlation_Id ?? ''),
    startNs: ns(r.Start_Timestamp!, 'Start_Timestamp'),
    endNs: ns(r.End_Timestamp!, 'End_Timestamp'),
  }));
}
