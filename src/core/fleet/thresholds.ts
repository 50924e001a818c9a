/**
 * Pass/fail limits for a fleet, as health-check tools judge nodes: a JSON file such as
 *
 *   { "minGbps": { "engine/host": 40 }, "matrixMinGbps": { "engine/device": 100 }, "maxBelowMedian": 0.15 }
 *
 * `minGbps`: every sweep peak of that path (any pair, any CU count) must reach it;
 * `matrixMinGbps`: every matrix cell of that path; `maxBelowMedian`: no bandwidth figure of a
 * node may sit more than this fraction below the fleet's median of it. Unknown keys are
 * refused, so a typo is an error, not a check that silently never runs. Browser-safe.
 */
import * as v from 'valibot';
import { PATHS } from '../protocol';
import type { PathName } from '../protocol';

const gbpsByPath = v.pipe(
  v.record(v.picklist(PATHS), v.pipe(v.number(), v.finite(), v.minValue(0))),
  v.check((r) => Object.keys(r).length > 0, 'names at least one path'),
);

export const ThresholdsSchema = v.strictObject({
  minGbps: v.optional(gbpsByPath),
  matrixMinGbps: v.optional(gbpsByPath),
  maxBelowMedian: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1))),
});
export type Thresholds = v.InferOutput<typeof ThresholdsSchema>;

/** Parses a thresholds file's text; the error names the file's first problem and the accepted keys. */
export function parseThresholds(text: string, name = 'the thresholds file'): Thresholds {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} is not JSON: ${(err as Error).message}`);
  }
  const parsed = v.safeParse(ThresholdsSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    throw new Error(
      `${name}: ${where ? `${where}: ` : ''}${issue.message} (accepted: minGbps and matrixMinGbps as { "<path>": GB/s } with paths ${PATHS.join(', ')}, and maxBelowMedian as a fraction 0..1)`,
    );
  }
  return parsed.output;
}

export function minimumFor(t: Thresholds, kind: 'peak' | 'cell', path: PathName | undefined): number | undefined {
  if (path === undefined) return undefined;
  return (kind === 'peak' ? t.minGbps : t.matrixMinGbps)?.[path];
}
