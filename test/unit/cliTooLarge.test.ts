/**
 * A command that meets one of the engine's size limits (a list too long for an argument list,
 * a text too long for a string) ends with a sentence and exit 1, not with an "unexpected
 * error" and its stack. Any other error still surfaces as one. The command here is `runs`,
 * made to throw what such a limit throws; the CLI runs in-process.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli';

const thrown = vi.hoisted(() => ({ error: new Error('unset') as Error }));

vi.mock('../../src/cli/commands/saved', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/cli/commands/saved')>()),
  runs: () => Promise.reject(thrown.error),
}));

describe('size limits of the engine', () => {
  it.each(['Maximum call stack size exceeded', 'Invalid string length', 'Invalid array length'])(
    '"%s" is said in a sentence, exit 1',
    async (message) => {
      thrown.error = new RangeError(message);
      const r = await runCli(['runs']);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toBe(
        `sdma-lens: runs stopped: the data is too large for it (${message}); its output is missing or incomplete\n`,
      );
    },
  );

  it('another error is not taken for one', async () => {
    thrown.error = new RangeError('Invalid time value');
    await expect(runCli(['runs'])).rejects.toThrow('Invalid time value');
    thrown.error = new TypeError('Maximum call stack size exceeded');
    await expect(runCli(['runs'])).rejects.toThrow(TypeError);
  });
});
