/** Entry point of the `sdma-lens` command. */
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`sdma-lens: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(70);
  },
);
