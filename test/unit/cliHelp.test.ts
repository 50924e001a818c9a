/**
 * What `sdma-lens` says about its own use, in-process (nothing is run): the overview, each
 * command's help (`<command> --help`, `-h`, `help <command>`) with every flag the command takes,
 * `--version`, and bad arguments as two lines (what is wrong, where the help is), exit 2, with
 * the command or flag meant when one is near.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { COMMAND_NAMES, commandHelp, overview } from '../../src/cli/usage';
import type { CommandName } from '../../src/cli/usage';
import { runCli } from '../support/cli';

/** The flags each parse of a command declared, recorded as the commands parse their words. */
const declared = vi.hoisted(() => ({ options: [] as Record<string, { short?: string }>[] }));

vi.mock('../../src/cli/flags', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/cli/flags')>();
  return {
    ...real,
    parseFlags: ((config: { options?: Record<string, { short?: string }> }) => {
      declared.options.push(config.options ?? {});
      return real.parseFlags(config as never);
    }) as typeof real.parseFlags,
  };
});

const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string })
  .version;

/** The words that reach each parse of a command (fleet has three more, by their first word). */
const PARSES: Record<CommandName, string[][]> = {
  sweep: [[]],
  matrix: [[]],
  collective: [[]],
  overlap: [[]],
  import: [[]],
  advise: [[]],
  runs: [[]],
  compare: [[]],
  fleet: [[], ['show'], ['collect'], ['cancel']],
};

describe('help', () => {
  it.each([['--help'], ['-h'], ['help'], ['help', 'help']])(
    'sdma-lens %s prints the overview: every command on a line, exit 0',
    async (...args) => {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out).toBe(`${overview()}\n`);
      for (const c of COMMAND_NAMES) expect(r.out).toMatch(new RegExp(`^  ${c} +\\S`, 'm'));
      expect(r.out.split('\n').length).toBeLessThan(30);
    },
  );

  it('sdma-lens alone prints the overview and exits 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.out).toBe(`${overview()}\n`);
  });

  it.each(COMMAND_NAMES)(
    "%s --help, -h and help %s print that command's help alone: synopsis, options, exit codes; exit 0",
    async (command) => {
      const help = commandHelp(command);
      expect(help).toMatch(new RegExp(`^Usage: sdma-lens ${command}\\b`));
      expect(help).toMatch(/\nOptions:\n|\nNodes:\n/);
      expect(help).toMatch(/\nExit codes:\n {2}0 {4}\S/);
      expect(help).toMatch(/^ {2}2 {4}bad arguments/m);
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
        [command, '--json', '-h'],
        [command, '--bogus', '--help'],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.err).toBe('');
        expect(r.out).toBe(`${help}\n`);
      }
      // Other commands' options are not there.
      for (const other of COMMAND_NAMES.filter((c) => c !== command))
        expect(help).not.toContain(`Usage: sdma-lens ${other}`);
    },
  );

  it("fleet show, collect and cancel --help print the fleet's help", async () => {
    for (const sub of ['show', 'collect', 'cancel']) {
      const r = await runCli(['fleet', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${commandHelp('fleet')}\n`);
    }
  });

  it("sweep --help shows the sweep's options only", () => {
    const help = commandHelp('sweep');
    for (const flag of ['--sizes', '--refine-tolerance', '--pairs', '--stall-timeout', '--target'])
      expect(help).toContain(flag);
    for (const flag of ['--fail-below', '--buffer-size', '--nodelist', '--concurrent', '--min-bytes', '--rccl-version'])
      expect(help).not.toContain(flag);
    expect(help).toContain('1M:64M');
  });

  it.each(COMMAND_NAMES)(
    'every flag %s takes is in its help, and every flag its help names is taken',
    async (command) => {
      const help = commandHelp(command);
      declared.options = [];
      for (const words of PARSES[command]) await runCli([command, ...words, '--help']);
      expect(declared.options.length).toBe(PARSES[command].length);
      for (const options of declared.options) {
        for (const [name, o] of Object.entries(options)) {
          // Flags for tests of failure are left out of the help on purpose.
          if (name === 'fault' || name === 'sim-delay-ms') continue;
          expect(help, `--${name}`).toMatch(new RegExp(`--${name}\\b`));
          if (o.short) expect(help, `-${o.short}`).toMatch(new RegExp(`(^|\\s)-${o.short}\\b`, 'm'));
        }
      }
      const known = new Set(declared.options.flatMap((o) => Object.keys(o)));
      const named = [...help.matchAll(/(?<![\w-])--([a-z][a-z-]*[a-z])/g)].map((m) => m[1]!);
      for (const name of named)
        if (name !== 'help') expect(known.has(name), `--${name} in the help of ${command}`).toBe(true);
    },
  );
});

describe('version', () => {
  it.each(['--version', '-V'])('sdma-lens %s prints the version of package.json, exit 0', async (flag) => {
    const r = await runCli([flag]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`sdma-lens ${version}\n`);
    expect(r.err).toBe('');
  });
});

describe('bad arguments: two lines, exit 2', () => {
  const refused = async (args: string[], first: string, see = `see sdma-lens ${args[0]} --help`) => {
    const r = await runCli(args);
    expect(r.code, args.join(' ')).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(`${first}\n${see}\n`);
  };

  it('an unknown command, with the command meant', async () => {
    await refused(['swep'], 'sdma-lens: unknown command "swep" (did you mean sweep?)', 'see sdma-lens --help');
    await refused(
      ['comapre', 'a', 'b'],
      'sdma-lens: unknown command "comapre" (did you mean compare?)',
      'see sdma-lens --help',
    );
    await refused(['advice'], 'sdma-lens: unknown command "advice" (did you mean advise?)', 'see sdma-lens --help');
    await refused(['explode'], 'sdma-lens: unknown command "explode"', 'see sdma-lens --help');
    await refused(
      ['help', 'matirx'],
      'sdma-lens help: unknown command "matirx" (did you mean matrix?)',
      'see sdma-lens --help',
    );
    await refused(
      ['--sizes', '4K'],
      'sdma-lens: unknown option --sizes; a command comes first: sdma-lens <command> [options]',
      'see sdma-lens --help',
    );
    await refused(
      ['--verison'],
      'sdma-lens: unknown option --verison (did you mean --version?); a command comes first: sdma-lens <command> [options]',
      'see sdma-lens --help',
    );
  });

  it("an unknown flag, with the flag meant, and no hint of parseArgs'", async () => {
    await refused(['sweep', '--sizs', '4K'], 'sdma-lens sweep: unknown option --sizs (did you mean --sizes?)');
    await refused(['sweep', '-sizes', '4K'], 'sdma-lens sweep: unknown option -sizes (did you mean --sizes?)');
    await refused(
      ['sweep', '--sim=2'],
      'sdma-lens sweep: unknown option --sim (did you mean --sim-gpus or --sim-weak?)',
    );
    await refused(['matrix', '--sizes', '4K'], 'sdma-lens matrix: unknown option --sizes (did you mean --size?)');
    await refused(
      ['compare', '--fail', '0.9', 'a', 'b'],
      'sdma-lens compare: unknown option --fail (did you mean --fail-below?)',
    );
    await refused(['advise', '--pairs', '0:1'], 'sdma-lens advise: unknown option --pairs (did you mean --pair?)');
    await refused(['import', '--bogus', 'x.txt'], 'sdma-lens import: unknown option --bogus');
    await refused(['fleet', 'show', '--wait'], 'sdma-lens fleet: unknown option --wait');
    // Flags for tests of failure are never offered.
    await refused(['sweep', '--faults', 'x'], 'sdma-lens sweep: unknown option --faults');
  });

  it('a flag without its value, a switch with one, a word a command does not take', async () => {
    await refused(['sweep', '--sizes'], 'sdma-lens sweep: --sizes needs a value');
    await refused(
      ['sweep', '--sizes', '--json'],
      'sdma-lens sweep: --sizes needs a value, not the option "--json" (a value that starts with "-" is written --sizes=VALUE)',
    );
    await refused(['sweep', '--json=yes'], 'sdma-lens sweep: --json takes no value (got --json=yes)');
    await refused(['collective', '-b'], 'sdma-lens collective: -b needs a value');
    await refused(
      ['sweep', 'sizes', '4K'],
      'sdma-lens sweep: unexpected argument "sizes": this command takes options only (did you mean --sizes?)',
    );
    await refused(['runs', 'all'], 'sdma-lens runs: unexpected argument "all": this command takes options only');
    await refused(
      ['help', 'sweep', 'matrix'],
      'sdma-lens help: takes one command (got 2 words: sweep matrix)',
      'see sdma-lens --help',
    );
  });

  it("a bad value of the command's own, said with the flag", async () => {
    await refused(
      ['sweep', '--sizes', '4K,,1M'],
      'sdma-lens sweep: --sizes: "4K,,1M" has an empty item (two commas in a row); list sizes separated by single commas (e.g. 4K,64K,1M or 1M:64M)',
    );
    await refused(
      ['fleet', '--nodes', '2', '--sizes', '4K,'],
      'sdma-lens fleet: --sizes: "4K," ends with a comma; list sizes separated by single commas (e.g. 4K,64K,1M or 1M:64M)',
    );
    await refused(
      ['advise', '--sizes', '64M:1M'],
      'sdma-lens advise: --sizes: range "64M:1M" runs backwards: FROM must not be above TO (e.g. 1M:64M)',
    );
    await refused(
      ['matrix', '--size', '1M:2M'],
      'sdma-lens matrix: --size: "1M:2M" is not a size (use e.g. 4096, 64K, 1M, 1G)',
    );
    await refused(
      ['sweep', '--timeline-size', '4K,1M'],
      'sdma-lens sweep: --timeline-size: "4K,1M" is not a size (use e.g. 4096, 64K, 1M, 1G)',
    );
    await refused(
      ['compare', 'a'],
      'sdma-lens compare: needs two runs, A (the baseline) and B, each a run id or a run.ndjson file (got 1)',
    );
  });
});
