/**
 * The one reader of a helper's output (src/core/runtime/helperOutput.ts), shared by a run's
 * session and `info`: lines split anywhere, a last record without its newline, a cut-off
 * tail, stderr's last line, and the silence watchdog.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LineResult } from '../../src/core/protocol';
import { readHelperOutput } from '../../src/core/runtime/helperOutput';
import type { HelperProcess, ProcessExit } from '../../src/core/runtime/target';

function child(write: (stdout: PassThrough, stderr: PassThrough) => Promise<void>): HelperProcess {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const exit = write(stdout, stderr).then((): ProcessExit => {
    stdout.end();
    stderr.end();
    return { exitCode: 0, signal: null };
  });
  return { pid: 1, stdout, stderr, exit };
}

describe('readHelperOutput', () => {
  it('hands over each line parsed, a last record without its newline, and stderr with its last line marked', async () => {
    const kinds: string[] = [];
    const stderr: [string, boolean][] = [];
    let chunks = 0;
    const exit = await readHelperOutput(
      child(async (out, err) => {
        out.write('{"type":"heart');
        out.write('beat","elapsedMs":1}\nnot json\n{"type":"warning","code":"x","message":"m"}');
        err.write('first\nlast without newline');
      }),
      {
        onLine: (r: LineResult) => kinds.push(r.kind === 'record' ? r.record.type : r.kind),
        onChunk: () => chunks++,
        onStderr: (line, last) => stderr.push([line, last]),
      },
    );
    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(kinds).toEqual(['heartbeat', 'malformed', 'warning']);
    expect(chunks).toBe(2);
    expect(stderr).toEqual([
      ['first', false],
      ['last without newline', true],
    ]);
  });

  it('a last line that is no record is said as cut off, with its length', async () => {
    let cut: number | undefined;
    await readHelperOutput(
      child(async (out) => void out.write('{"type":"sam')),
      { onLine: () => {}, onCutTail: (chars) => (cut = chars) },
    );
    expect(cut).toBe(12);
  });

  it('silence for the limit calls onStall once; output before it does not', async () => {
    const stalls: number[] = [];
    await readHelperOutput(
      child(async (out) => {
        for (let i = 0; i < 3; i++) {
          out.write('{"type":"heartbeat","elapsedMs":1}\n');
          await new Promise((r) => setTimeout(r, 30));
        }
        await new Promise((r) => setTimeout(r, 250));
      }),
      { onLine: () => {}, stall: { ms: 100, onStall: (quiet) => stalls.push(quiet) } },
    );
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(100);
  });
});
