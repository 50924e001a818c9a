/**
 * The CLI's command names, in the overview's order: a module of its own so that a command's
 * bundle can tell a command name apart without the help texts (usage.ts, in dist/cli.js only).
 */
export const COMMAND_NAMES = [
  'sweep',
  'matrix',
  'collective',
  'overlap',
  'import',
  'advise',
  'runs',
  'compare',
  'fleet',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

export function isCommand(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
