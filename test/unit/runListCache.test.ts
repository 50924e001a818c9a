/**
 * The runs listing's cache over many listings (runList.ts): whatever runs come, go, grow or stop
 * being runs, a cached `RunList` lists exactly what a fresh one does, newest first, and reads
 * only what changed.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_FILE_NAME } from '../../src/core/run';
import { RunList } from '../../src/core/runs/runList';
import { header, hello } from '../support/records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-list-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const id = (i: number) => `2026-12-04T00-00-${String(i).padStart(2, '0')}-000Z-sweep-sim-x`;
const file = (i: number) => join(dir, id(i), RUN_FILE_NAME);

function write(i: number): void {
  mkdirSync(join(dir, id(i)), { recursive: true });
  writeFileSync(file(i), `${JSON.stringify(header(id(i)))}\n${JSON.stringify(hello)}\n`);
}

type Op = { kind: 'add' | 'remove' | 'grow' | 'unfile' | 'none'; i: number };

async function apply(op: Op): Promise<void> {
  const present = (() => {
    try {
      appendFileSync(file(op.i), '');
      return true;
    } catch {
      return false;
    }
  })();
  if (op.kind === 'add' && !present) write(op.i);
  if (op.kind === 'remove') rmSync(join(dir, id(op.i)), { recursive: true, force: true });
  if (op.kind === 'grow' && present) appendFileSync(file(op.i), '{"type":"x"}\n');
  // A folder that stops being a run: its run.ndjson gone, the folder kept.
  if (op.kind === 'unfile') rmSync(file(op.i), { force: true });
}

describe('RunList cache over many listings', () => {
  it('lists what a fresh listing does, newest first, whatever changes between listings', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Listings, and before each the changes since the last (a run gone and another come between two listings).
        fc.array(
          fc.array(
            fc.record({
              kind: fc.constantFrom<Op['kind']>('add', 'add', 'remove', 'grow', 'unfile', 'none'),
              i: fc.integer({ min: 0, max: 11 }),
            }),
            { maxLength: 4 },
          ),
          { maxLength: 12 },
        ),
        async (batches) => {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir);
          const cached = new RunList(dir, { cache: true });
          for (const ops of batches) {
            for (const op of ops) await apply(op);
            const got = await cached.list();
            const fresh = await new RunList(dir).list();
            expect(got).toEqual(fresh);
            const ids = got.map((s) => s.id);
            expect(ids).toEqual([...ids].sort().reverse());
            // Runs gone leave the cache: it keeps the listed runs (all regular files here), no more.
            expect(cached.cached).toBe(got.length);
          }
          // Nothing changed: nothing read.
          await cached.list();
          expect(cached.lastRead).toBe(0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('many runs: listed newest first, an unchanged folder read not at all, one new run read alone', async () => {
    for (let i = 0; i < 150; i++) {
      const name = `2026-12-04T00-${String(i % 60).padStart(2, '0')}-${String(i).padStart(3, '0')}-run`;
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, RUN_FILE_NAME), `${JSON.stringify(header(name))}\n`);
    }
    const list = new RunList(dir, { cache: true });
    const first = await list.list();
    expect(first).toHaveLength(150);
    expect(first.map((s) => s.id)).toEqual(
      first
        .map((s) => s.id)
        .sort()
        .reverse(),
    );
    expect(await list.list()).toEqual(first);
    expect(list.lastRead).toBe(0);
    const newest = '2026-12-05T00-00-000-run';
    mkdirSync(join(dir, newest));
    writeFileSync(join(dir, newest, RUN_FILE_NAME), `${JSON.stringify(header(newest))}\n`);
    const after = await list.list();
    expect(list.lastRead).toBe(1);
    expect(after[0]?.id).toBe(newest);
    expect(after.slice(1)).toEqual(first);
  });
});
