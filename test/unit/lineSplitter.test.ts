import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_CHARS } from '../../src/core/runs/lineSplitter';

function collect(chunks: (string | Buffer)[]) {
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l));
  for (const c of chunks) s.push(c);
  return { lines, tail: s.end() };
}

describe('LineSplitter', () => {
  it('joins lines split across chunks', () => {
    const { lines, tail } = collect(['{"a":', '1}\n{"b"', ':2}\n']);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(tail).toBeUndefined();
  });

  it('keeps a multi-byte character split between two chunks intact', () => {
    const bytes = Buffer.from('{"m":"µs → GB/s"}\n', 'utf8');
    const cut = bytes.indexOf(0xb5); // inside the two-byte "µ"
    const { lines } = collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(lines).toEqual(['{"m":"µs → GB/s"}']);
  });

  it('strips CR of CRLF line ends and skips empty lines', () => {
    expect(collect(['a\r\n\r\n\nb\n']).lines).toEqual(['a', 'b']);
  });

  it('hands back an unterminated tail (a line cut off by a kill)', () => {
    const { lines, tail } = collect(['{"type":"hello"}\n{"type":"sam']);
    expect(lines).toEqual(['{"type":"hello"}']);
    expect(tail).toBe('{"type":"sam');
  });

  it('reports and drops an over-long line, then carries on with the next', () => {
    const overflows: number[] = [];
    const lines: string[] = [];
    const s = new LineSplitter(
      (l) => lines.push(l),
      (n) => overflows.push(n),
    );
    const big = 'x'.repeat(33 * 1024 * 1024);
    s.push(big);
    s.push(big);
    s.push('rest of the long line\nnext\n');
    expect(overflows.length).toBeGreaterThan(0);
    expect(lines).toEqual(['next']);
  });

  it('reports an over-long line once, however much of it follows', () => {
    const overflows: number[] = [];
    const lines: string[] = [];
    const s = new LineSplitter(
      (l) => lines.push(l),
      (n) => overflows.push(n),
    );
    const piece = 'y'.repeat(16 * 1024 * 1024);
    for (let i = 0; i < 10; i++) s.push(piece); // 160 M characters, one line
    s.push('\r\nafter\n');
    expect(overflows).toHaveLength(1);
    expect(overflows[0]).toBeGreaterThan(MAX_LINE_CHARS);
    expect(lines).toEqual(['after']);
    expect(s.end()).toBeUndefined();
  });

  it('keeps a CR split from its LF by a chunk boundary out of the line', () => {
    expect(collect(['abc\r', '\ndef\r', '\n', '\r\n']).lines).toEqual(['abc', 'def']);
  });

  it('splits a 48 MB line fed in 64 KiB chunks, with the lines around it', () => {
    const { lines, seconds } = splitBigLine(48);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('before');
    expect(lines[1]!.length).toBe(48 * 1024 * 1024);
    expect(lines[1]!.startsWith('{"µ":"') && lines[1]!.endsWith('"}')).toBe(true);
    expect(lines[2]).toBe('after');
    expect(seconds).toBeGreaterThan(0);
  });

  it('takes time linear in the length of a line (per MB, 48 MB costs at most ~8x what 4 MB does)', () => {
    const perMb = (mb: number) => Math.min(...[0, 1, 2].map(() => splitBigLine(mb).seconds)) / mb;
    perMb(4); // warm up
    const small = perMb(4);
    const large = perMb(48);
    // The quadratic splitter took ~12x more per MB at 48 MB than at 4 MB (it rescanned the whole pending text every chunk).
    expect(large / small).toBeLessThan(8);
  });
});

/** "before", then one line of `mb` MiB (with two-byte characters cut by chunk boundaries), then "after", in 64 KiB chunks. */
function splitBigLine(mb: number): { lines: string[]; seconds: number } {
  const body = 'µ'.repeat(3) + 'x'.repeat(mb * 1024 * 1024 - 3 - 8);
  const data = Buffer.from(`before\r\n{"µ":"${body}"}\nafter\n`, 'utf8');
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l));
  const t0 = performance.now();
  for (let o = 0; o < data.length; o += 65536) s.push(data.subarray(o, o + 65536));
  const seconds = (performance.now() - t0) / 1000;
  expect(s.end()).toBeUndefined();
  return { lines, seconds };
}
