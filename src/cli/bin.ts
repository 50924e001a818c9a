/** Entry point of the `sdma-lens` command. */
import { escapeControls } from '../core/text';
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`sdma-lens: unexpected error: ${escapeControls((err as Error).stack ?? String(err), { newlines: true })}\n`);
    process.exit(70);
  },
);
