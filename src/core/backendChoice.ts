/**
 * The backends a user may ask a measurement for: `auto` (the helper picks the best it has), the
 * simulator, or one named GPU backend. One list for the sweep, the matrix and the node's `info`,
 * checked by each options reader and offered by each front.
 */
export const BACKEND_CHOICES = ['auto', 'sim', 'hip', 'cuda'] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];
