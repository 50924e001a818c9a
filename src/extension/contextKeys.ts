/**
 * Context keys SDMA Lens sets that the manifest reads (`when` clauses, the walkthrough's
 * `completionEvents`). Plain constants, no `vscode` import, so the manifest test can check
 * package.json against them.
 */

/** True once a transfer sweep in this window has measured something: ticks the walkthrough's "Run a transfer sweep". */
export const SWEEP_MEASURED_KEY = 'sdmaLens.sweepMeasured';

/** True once a Profile run in this window has recorded a kernel launch or a copy: ticks the walkthrough's profile step. */
export const PROFILE_RECORDED_KEY = 'sdmaLens.profileRecorded';
