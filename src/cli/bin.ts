/**
 * Entry point of the `sdma-lens` command. It ends once stdout and stderr have taken all it
 * wrote (exitWhenWritten), so a pipe gets the whole output, and a reader that goes away
 * (EPIPE) ends it quietly (watchOutput).
 */
import { escapeControls } from '../core/text';
import { exitWhenWritten, main, watchOutput } from './main';

watchOutput();
main(process.argv.slice(2)).then(
  (code) => exitWhenWritten(code),
  (err: unknown) => {
    process.stderr.write(
      `sdma-lens: unexpected error: ${escapeControls((err as Error).stack ?? String(err), { newlines: true })}\n`,
    );
    exitWhenWritten(70);
  },
);
