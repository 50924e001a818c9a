// `npm run build:native`: the native helper into native/build (CMake, Release), one build job
// per core (SDMA_LENS_BUILD_JOBS=N to change): sdma-probe and what it loads, as `npm start`
// builds it (a GPU backend only where its GPU is present).
//   npm run build:native -- --all   everything: every GPU backend this machine can compile,
//                                   and the helper's unit tests (as `npm test` builds it)
import { buildNative } from './prepare.mjs';

const args = process.argv.slice(2);
if (args.some((a) => a !== '--all')) {
  console.error(`unknown argument ${args.find((a) => a !== '--all')}\nusage: npm run build:native [-- --all]`);
  process.exit(2);
}
buildNative(args.includes('--all') ? 'all' : 'helper');
