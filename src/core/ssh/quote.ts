/**
 * The one place that turns an argument array into text for a remote shell.
 *
 * ssh sends the remote command as a single string, which the node's login shell parses.
 * Every other part of SDMA Lens passes argument arrays; only this function crosses into
 * shell syntax, so it is the one to audit.
 *
 * Rule: every element is wrapped in single quotes, always (even "safe" words, so there is no
 * judgement to get wrong), and each single quote inside it is written as '\'' (close the
 * quote, an escaped quote, reopen). Inside single quotes a POSIX shell gives no character a
 * special meaning: not $ ` \ ! * ? ; | & < > ( ) { } # ~, not spaces, tabs or newlines. A
 * leading dash stays part of the word, so whether it is an option is up to the program
 * that receives it, exactly as with a local argument array.
 *
 * NUL cannot be carried by any shell word (or by execve), so it is refused rather than
 * truncated silently.
 */

export class RemoteQuoteError extends Error {}

/** Quotes one argument as a single-quoted POSIX shell word. */
export function quoteShellWord(arg: string): string {
  if (typeof arg !== 'string') throw new RemoteQuoteError(`cannot quote a ${typeof arg} for the remote shell`);
  if (arg.includes('\0')) throw new RemoteQuoteError('an argument for the remote shell contains a NUL character');
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The remote command string for `ssh ... -- HOST <string>`: argv[0] is the program, the rest
 * its arguments, each one word for the remote shell whatever characters it holds.
 */
export function remoteCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new RemoteQuoteError('no remote command');
  return argv.map(quoteShellWord).join(' ');
}
