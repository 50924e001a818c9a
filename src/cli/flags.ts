/**
 * The one reading of a command's words into its flags (node:util's parseArgs), for every
 * command: `--help` or `-h` among them asks for the command's help (main.ts prints it), and a
 * word parseArgs refuses becomes a usage error in this CLI's words, naming the word and the
 * flags it may have meant, never parseArgs' own hints.
 */
import type { ParseArgsConfig } from 'node:util';
import { parseArgs } from 'node:util';
import { UsageError } from './options';
import { didYouMean } from './suggest';

/** `--help` or `-h` among a command's flags: main prints that command's help and exits 0. */
export class HelpRequested extends Error {
  constructor() {
    super('help requested');
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Token = NonNullable<
  ReturnType<typeof parseArgs<{ tokens: true; strict: false; allowPositionals: true }>>['tokens']
>[number];
type OptionToken = Extract<Token, { kind: 'option' }>;

/** Flags for tests of failure, not for users: not in the help, so never suggested. */
const UNLISTED = new Set(['fault', 'sim-delay-ms']);

/**
 * `parseArgs(config)` (strict), with help requests and refusals said as described above. The
 * words are read once when they are right; the loose reading that finds a help request or
 * the word at fault runs only when the strict one refuses them.
 */
export function parseFlags<T extends ParseArgsConfig & { strict: true }>(config: T): ReturnType<typeof parseArgs<T>> {
  const options: Options = config.options ?? {};
  const args = [...(config.args ?? [])];
  let refused: Error;
  try {
    // Words the strict reading takes hold no help request: `--help` or `-h` is refused unless
    // the command has an option of that name, and then it is that option, not a request.
    return parseArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw err;
    refused = err as Error;
  }
  // Read loosely: every word, known or not, in the order parseArgs checks them.
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((t) => t.kind === 'option' && asksForHelp(t, options))) throw new HelpRequested();
  throw new UsageError(
    firstProblem(tokens, args, options, config.allowPositionals === true) ?? firstSentence(refused.message),
  );
}

function asksForHelp(t: OptionToken, options: Options): boolean {
  if (t.rawName === '--help') return !Object.hasOwn(options, 'help');
  return t.rawName === '-h' && !Object.values(options).some((o) => o.short === 'h');
}

/** The first word strict parsing refuses, said with what to do instead. */
function firstProblem(
  tokens: Token[],
  args: string[],
  options: Options,
  allowPositionals: boolean,
): string | undefined {
  const names = Object.keys(options).filter((n) => !UNLISTED.has(n));
  const suggest = (word: string) => didYouMean(word.replace(/^-+/, ''), names, (n) => `--${n}`);
  for (const t of tokens) {
    if (t.kind === 'positional' && !allowPositionals)
      return `unexpected argument "${t.value}": this command takes options only${suggest(t.value)}`;
    if (t.kind !== 'option') continue;
    const option = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!option) {
      // The word as typed (`-sizes`, not the `-s` parseArgs split it into), without its value.
      const word = (args[t.index] ?? t.rawName).split('=')[0]!;
      return `unknown option ${word}${suggest(word)}`;
    }
    if (option.type === 'boolean' && t.value !== undefined)
      return `${t.rawName} takes no value (got ${t.rawName}=${t.value})`;
    if (option.type === 'string' && t.value === undefined) return `${t.rawName} needs a value`;
    if (option.type === 'string' && !t.inlineValue && t.value?.startsWith('-')) {
      return `${t.rawName} needs a value, not the option "${t.value}" (a value that starts with "-" is written ${t.rawName}=VALUE)`;
    }
  }
  return undefined;
}

/** parseArgs' message up to its first full stop: its hints name forms this CLI does not use. */
function firstSentence(message: string): string {
  return message.split(/\.(\s|$)/)[0]!;
}
