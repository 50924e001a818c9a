/** A helper already found (a test's build, on any target), as the run flow asks for one. */
import type { HelperProvider } from '../../src/core/runtime/runFlow';

export function fixedHelper(path: string, backends: string[] = [], source = 'setting'): HelperProvider {
  return { helperFor: async () => ({ path, backends, source }), forget: () => {} };
}
