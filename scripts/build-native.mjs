// `npm run build:native`: the native helper into native/build (CMake, Release), one build job
// per core (SDMA_LENS_BUILD_JOBS=N to change).
import { buildNative } from './prepare.mjs';

buildNative();
