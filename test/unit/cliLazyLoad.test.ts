/**
 * What the CLI loads before it knows the command: main.ts's static imports must not reach the
 * commands, the run store, the schemas or execa (they come with the command bundles,
 * src/cli/bundles/: the sweep's file and the other commands' one); the sweep's bundle holds no
 * other command, and the other commands' bundle no sweep; every command is in its bundle, and
 * the helper-starting commands main.ts knows by name are the bundles' RUNS.
 */
import { join, resolve } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLES, BUNDLE_OF, loadCommand } from '../../src/cli/commandTable';
import { RUNS_HELPER } from '../../src/cli/main';
import { COMMAND_NAMES } from '../../src/cli/usage';

const repo = resolve(__dirname, '../..');

/** A CLI entry bundled as scripts/build.mjs bundles it, in memory. */
const bundled = (entry: string, more: BuildOptions) =>
  build({
    entryPoints: [join(repo, 'src', 'cli', ...entry.split('/'))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    write: false,
    outfile: 'out.js',
    logLevel: 'silent',
    ...more,
  });

async function inputsOf(entry: string, plugins: Plugin[]): Promise<string[]> {
  const r = await bundled(entry, { metafile: true, plugins });
  return Object.keys(r.metafile!.inputs);
}

describe('CLI start-up', () => {
  it('the entry bundle holds no command, no store, no schema and no execa', async () => {
    const inputs = await inputsOf('bin.ts', [
      {
        name: 'bundles-apart',
        setup(b) {
          b.onResolve({ filter: /^\.\/bundles\// }, (args) => ({ path: args.path, external: true }));
        },
      },
    ]);
    expect(inputs.filter((f) => /src\/cli\/commands\/|runStore|protocol\.ts|node_modules/.test(f))).toEqual([]);
    expect(inputs.length).toBeLessThan(16);
  });

  it("the sweep's bundle holds no other command and no execa", async () => {
    const inputs = await inputsOf('bundles/sweep.ts', [
      {
        name: 'execa-apart',
        setup(b) {
          b.onResolve({ filter: /^execa$/ }, () => ({ path: 'execa', external: true }));
        },
      },
    ]);
    const commands = inputs.filter((f) => /src\/cli\/commands\//.test(f)).map((f) => f.replace(/.*\//, ''));
    expect(commands).toEqual(['sweep.ts']);
    expect(
      inputs.filter((f) => /node_modules\/execa|src\/core\/(fleet|fleetRun|compare|imports|collective)\//.test(f)),
    ).toEqual([]);
    // The help texts are the entry bundle's: a command tells names apart by commandNames.ts alone.
    expect(inputs.filter((f) => /src\/cli\/usage\.ts/.test(f))).toEqual([]);
  });

  it("the sweep's bundle builds the schemas of records a sweep never meets only at their first read", async () => {
    const r = await bundled('bundles/sweep.ts', { external: ['execa'] });
    const text = r.outputFiles![0]!.text;
    // Made at load, each would be a `var NameSchema = ...` line: only their lazy builders are there.
    expect(text).toMatch(/\bvar overlapSchema = /);
    expect(
      text.match(
        /\bvar (Timeline|TimelineEvent|TimelineClock|MatrixCell|MatrixTotal|CollectiveVariant|VariantCondition|Collective|CusUsed|Overlap|Program|Dispatch|Copy|DeviceSpan|LibraryCalls)Schema = /g,
      ) ?? [],
    ).toEqual([]);
  });

  it("the other commands' bundle holds no sweep", async () => {
    const inputs = await inputsOf('bundles/commands.ts', [
      {
        name: 'execa-apart',
        setup(b) {
          b.onResolve({ filter: /^execa$/ }, () => ({ path: 'execa', external: true }));
        },
      },
    ]);
    const commands = inputs.filter((f) => /src\/cli\/commands\//.test(f)).map((f) => f.replace(/.*\//, ''));
    expect(commands).not.toContain('sweep.ts');
    expect(commands.length).toBeGreaterThanOrEqual(6);
  });

  it('every command is in its bundle, and main.ts knows which of them start the helper', async () => {
    expect(Object.keys(BUNDLE_OF).sort()).toEqual([...COMMAND_NAMES].sort());
    expect(new Set(Object.values(BUNDLE_OF))).toEqual(new Set(Object.keys(BUNDLES)));
    const runs = new Set<string>();
    for (const name of COMMAND_NAMES) {
      const bundle = await loadCommand(name);
      const run = bundle.RUNS[name];
      const read = bundle.READS[name];
      expect(run === undefined).not.toBe(read === undefined);
      if (run) runs.add(name);
      for (const error of ['RunFileError', 'HelperError', 'HelpRequested', 'UsageError'] as const)
        expect(typeof bundle[error]).toBe('function');
    }
    expect(runs).toEqual(RUNS_HELPER);
  });
});
