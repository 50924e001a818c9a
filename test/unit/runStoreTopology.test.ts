import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../src/core/run';
import { applySavedValue, newRun } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { done, header, hello } from '../support/records';

/** A real topology line (one H200 node, as the helper wrote it). */
const TOPOLOGY = readFileSync(join(__dirname, '../fixtures/runmode/runmode-fused-a2a.ndjson'), 'utf8')
  .split('\n')
  .find((l) => l.startsWith('{"type":"topology"'))!;

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-topology-'));
  store = new RunStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(id: string, topology: string): void {
  const w = store.create(header(id));
  for (const l of [JSON.stringify(hello), topology, JSON.stringify(done)]) w.appendLine(l);
  w.close();
}

/** What the line gives parsed and checked on its own (run.ts). */
function parsed(line: string) {
  const run = newRun(header('reference'));
  applySavedValue(run, JSON.parse(line));
  return run.topology;
}

describe("a fleet's topology lines, word for word the same from node to node", () => {
  it('are read once a thread: an equal line gives the record its first gave, frozen; another line is read afresh', async () => {
    expect(TOPOLOGY).toBeDefined();
    const other = JSON.stringify({ ...JSON.parse(TOPOLOGY), node: { ...JSON.parse(TOPOLOGY).node, name: 'node-b' } });
    write('a', TOPOLOGY);
    write('b', TOPOLOGY);
    write('c', other);
    write('d', TOPOLOGY);
    const reads: ((id: string) => Run | Promise<Run>)[] = [(id) => store.openSync(id), (id) => store.open(id)];
    for (const read of reads) {
      const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map(read));
      expect(a!.topology).toEqual(parsed(TOPOLOGY));
      expect(b!.topology).toEqual(parsed(TOPOLOGY));
      expect(c!.topology).toEqual(parsed(other));
      expect(d!.topology).toEqual(parsed(TOPOLOGY));
      expect(c!.topology!.node.name).toBe('node-b');
      for (const run of [a, b, c, d]) expect(run!.problems).toEqual([]);
      // Shared, so frozen to the leaves: no run can change another's.
      expect(Object.isFrozen(b!.topology)).toBe(true);
      expect(Object.isFrozen(b!.topology!.gpus[0])).toBe(true);
      expect(() => {
        (b!.topology!.node as { name: string }).name = 'changed';
      }).toThrow(TypeError);
    }
  });

  it('a line that differs by one character, or is not a valid topology, is not taken for the last one', async () => {
    write('a', TOPOLOGY);
    const broken = TOPOLOGY.replace('"cus":132', '"cus":-1');
    write('b', broken);
    const a = store.openSync('a');
    const b = store.openSync('b');
    expect(a.topology).toEqual(parsed(TOPOLOGY));
    expect(b.topology).toBeUndefined();
    expect(b.problems.some((p) => p.includes('malformed'))).toBe(true);
  });
});
