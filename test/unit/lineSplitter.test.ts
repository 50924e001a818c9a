import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/core/runtime/lineSplitter';

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
    const s = new LineSplitter((l) => lines.push(l), (n) => overflows.push(n));
    const big = 'x'.repeat(33 * 1024 * 1024);
    s.push(big);
    s.push(big);
    s.push('rest of the long line\nnext\n');
    expect(overflows.length).toBeGreaterThan(0);
    expect(lines).toEqual(['next']);
  });
});
