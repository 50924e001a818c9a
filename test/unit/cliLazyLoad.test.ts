/**
 * What the CLI loads before it knows the command: main.ts's static imports must not reach the
 * commands, the run store, the schemas or execa (they come with commandTable.ts, a bundle of its
 * own), and the helper-starting commands main.ts knows by name are the table's.
 */
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { RUNS, READS } from '../../src/cli/commandTable';
import { RUNS_HELPER } from '../../src/cli/main';
import { COMMAND_NAMES } from '../../src/cli/usage';

const repo = resolve(__dirname, '../..');

describe('CLI start-up', () => {
  it('the entry bundle holds no command, no store, no schema and no execa', async () => {
    const r = await build({
      entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      metafile: true,
      outfile: 'cli.js',
      logLevel: 'silent',
      plugins: [
        {
          name: 'commands-apart',
          setup(b) {
            b.onResolve({ filter: /^\.\/commandTable$/ }, () => ({ path: './cli-commands.js', external: true }));
          },
        },
      ],
    });
    const inputs = Object.keys(r.metafile.inputs);
    expect(inputs.filter((f) => /src\/cli\/commands\/|runStore|protocol\.ts|node_modules/.test(f))).toEqual([]);
    expect(inputs.length).toBeLessThan(12);
  });

  it('every command is in the table, and main.ts knows which of them start the helper', () => {
    expect(new Set(Object.keys(RUNS))).toEqual(RUNS_HELPER);
    expect([...Object.keys(RUNS), ...Object.keys(READS)].sort()).toEqual([...COMMAND_NAMES].sort());
  });
});
