/**
 * Checks knob assignments against the catalog for the library versions on the node: a
 * value that means something else at that version (NCCL_GIN_TYPE=7 on an RCCL where 7 is
 * not Anvil SDMA), a knob the version does not have, a bad number.
 */
import type { Assignment } from './envFiles';
import type { Library } from './knobs';
import { knob, meaningsOf, sdmaValues } from './knobs';
import { describeRange, inRange } from './version';

export interface KnobProblem {
  assignment: Assignment;
  severity: 'warning' | 'information';
  message: string;
  /** A value that fixes it, for a quick fix. */
  fix?: string;
}

export function diagnoseAssignments(
  assignments: Assignment[],
  versions: Partial<Record<Library, string>>,
): KnobProblem[] {
  const problems: KnobProblem[] = [];
  for (const a of assignments) {
    const k = knob(a.name);
    if (!k) continue;
    const version = versions[k.library];
    const lib = k.library.toUpperCase();
    if (version !== undefined && !inRange(version, k.versions)) {
      problems.push({
        assignment: a,
        severity: 'warning',
        message: `${a.name} is not read by ${lib} ${version} (it applies to ${describeRange(k.versions)}).`,
      });
      continue;
    }
    if (k.kind === 'bytes' || k.kind === 'count') {
      if (!/^\d+$/.test(a.value))
        problems.push({
          assignment: a,
          severity: 'warning',
          message: `${a.name} takes a whole number of ${k.unit} (got "${a.value}").`,
        });
      continue;
    }
    if (k.kind === 'bool') {
      if (a.value !== '0' && a.value !== '1')
        problems.push({
          assignment: a,
          severity: 'warning',
          message: `${a.name} takes 0 or 1 (got "${a.value}").`,
          fix: '1',
        });
      continue;
    }
    if (k.kind !== 'enum') continue;
    const meanings = meaningsOf(k, a.value, version);
    const sdma = sdmaValues(k, version);
    if (version === undefined) {
      const all = meaningsOf(k, a.value, undefined);
      if (all.length > 1 || all.some((m) => m.sdma)) {
        problems.push({
          assignment: a,
          severity: 'information',
          message: `${a.name}=${a.value} means ${all.map((m) => `${m.meaning} (${lib} ${describeRange(m.versions)})`).join(', or ')}. Set sdmaLens.advice.${k.library}Version so SDMA Lens can check it.`,
        });
      }
      continue;
    }
    if (meanings.length === 0) {
      problems.push({
        assignment: a,
        severity: 'warning',
        message: `${a.name}=${a.value} is not a known value for ${lib} ${version}.`,
        ...(sdma.length === 1 ? { fix: sdma[0]!.value } : {}),
      });
      continue;
    }
    const wantsSdma = meaningsOf(k, a.value, undefined).some((m) => m.sdma);
    if (wantsSdma && !meanings.some((m) => m.sdma) && sdma.length === 1) {
      problems.push({
        assignment: a,
        severity: 'warning',
        message: `${a.name}=${a.value} selects ${meanings[0]!.meaning} on ${lib} ${version}, not the copy engines: Anvil SDMA is ${sdma[0]!.value} there.`,
        fix: sdma[0]!.value,
      });
    }
  }
  return problems;
}
