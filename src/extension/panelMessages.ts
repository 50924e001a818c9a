/** What every panel host does with a message from its page: validate it, or log and drop it. */
import type * as vscode from 'vscode';

export function validPanelMessage<T>(
  raw: unknown,
  parse: (value: unknown) => T | undefined,
  log: vscode.LogOutputChannel,
  panel: string,
): T | undefined {
  const message = parse(raw);
  if (!message) log.warn(`ignored an invalid message from the ${panel} panel: ${JSON.stringify(raw)?.slice(0, 200)}`);
  return message;
}
