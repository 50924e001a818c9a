/** Format detection from content alone: each fixture as its tool and form; anything else "unknown", with a reason. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/core/imports/detect';

const fixture = (...p: string[]) => join(__dirname, '..', 'fixtures', ...p);
const detect = (...p: string[]) => {
  const d = detectFormat(readFileSync(fixture(...p)));
  return d.tool === 'unknown' ? { tool: d.tool } : { tool: d.tool, format: d.format };
};

describe('detectFormat', () => {
  it.each([
    [['imports', 'transferbench', 'h200x1-64K.txt'], 'TransferBench', 'text'],
    [['imports', 'transferbench', 'h200x1-1M.txt'], 'TransferBench', 'text'],
    [['imports', 'transferbench', 'h200x1-16M.txt'], 'TransferBench', 'text'],
    [['imports', 'transferbench', 'h200x1-64K.csv'], 'TransferBench', 'csv'],
    [['imports', 'transferbench', 'h200x1-1M.csv'], 'TransferBench', 'csv'],
    [['imports', 'transferbench', 'h200x1-16M.csv'], 'TransferBench', 'csv'],
    [['imports', 'transferbench', 'mi300x-show-iterations.txt'], 'TransferBench', 'text'],
    [['imports', 'nvbandwidth', 'h200x1.txt'], 'nvbandwidth', 'text'],
    [['imports', 'nvbandwidth', 'h200x1.json'], 'nvbandwidth', 'json'],
    [['imports', 'nccl-tests', 'alltoall-g1.txt'], 'nccl-tests', 'text'],
    [['imports', 'nccl-tests', 'alltoall-g1.json'], 'nccl-tests', 'json'],
    [['imports', 'rccl-tests', 'mi300x-alltoall.txt'], 'rccl-tests', 'text'],
    [['imports', 'rccl-tests', 'mi300x-old-header.txt'], 'rccl-tests', 'text'],
    [['imports', 'rccl-tests', 'mi300x-allgather.json'], 'rccl-tests', 'json'],
    [['rocpd', 'fixture.db'], 'rocpd', 'sqlite'],
  ])('%j is %s %s', (path, tool, format) => {
    expect(detect(...(path as string[]))).toEqual({ tool, format });
  });

  it('a run file of SDMA Lens itself is recognized as one, whatever its command or length', () => {
    for (const name of ['sim-sweep-seed1.ndjson', 'sim-matrix-seed1.ndjson']) {
      const text = readFileSync(fixture('runs', name), 'utf8');
      const id = name.replace('.ndjson', '');
      const command = name.includes('matrix') ? 'matrix' : 'sweep';
      expect(detectFormat(new TextEncoder().encode(text))).toEqual({ tool: 'sdma-lens', format: 'run', id, command });
      // The header alone (a run that saved nothing more), and one cut off mid-line.
      expect(detectFormat(new TextEncoder().encode(text.slice(0, text.indexOf('\n') + 1)))).toMatchObject({
        tool: 'sdma-lens',
        id,
      });
      expect(detectFormat(new TextEncoder().encode(text.slice(0, text.indexOf('\n') + 40)))).toMatchObject({
        tool: 'sdma-lens',
        id,
      });
    }
    expect(detect('imports', 'handwritten', 'run.ndjson')).toEqual({ tool: 'sdma-lens', format: 'run' });
    // An id or command that is not a plain word is left out, never repeated.
    expect(
      detectFormat(
        new TextEncoder().encode(
          '{"type":"run","format":"sdma-lens-run","version":1,"id":"a b\\u001b[2J","command":"x\\ny"}\n',
        ),
      ),
    ).toEqual({ tool: 'sdma-lens', format: 'run' });
  });

  it('files of no known format are unknown, each with its reason', () => {
    const reason = (text: string | Uint8Array) => {
      const d = detectFormat(typeof text === 'string' ? new TextEncoder().encode(text) : text);
      return d.tool === 'unknown' ? d.reason : `detected as ${d.tool}`;
    };
    // A random text file: this test file itself, and a generated one.
    expect(reason(readFileSync(__filename, 'utf8'))).toMatch(
      /^not the output of TransferBench, nvbandwidth, nccl-tests or rccl-tests/,
    );
    let seed = 12345;
    const words = Array.from({ length: 500 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed.toString(36);
    });
    expect(reason(words.join(' '))).toMatch(/^not the output of/);
    expect(reason('')).toBe('the file is empty');
    expect(reason(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]))).toMatch(/binary/);
    expect(reason('{"hello": "world"}')).toMatch(/^a JSON file, but neither/);
    // A JSON output cut off (the tool died before its end): said as such.
    expect(reason(readFileSync(fixture('imports', 'nccl-tests', 'alltoall-g1.json'), 'utf8').slice(0, 4000))).toMatch(
      /does not parse .*cut off/,
    );
    // Another tool's CSV is not TransferBench's because it has commas.
    expect(reason('name,value\nfoo,1\nbar,2\n')).toMatch(/^not the output of/);
  });
});
