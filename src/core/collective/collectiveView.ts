/** The collective panel's view model: a pure function of a run (`collective` or `overlap`). */
import type { CollectivePageView } from './collectiveMessages';
import type { CollectiveAdvice, Vendor } from './collective';
import { collectiveAdvice, collectiveLauncherOf, collectiveModeOf, curvesOf, overlapView } from './collective';
import type { Run } from '../run';
import { isSimulated, runStatus } from '../run';
import { knob } from '../advice/knobs';
import { shellExport } from '../text';

/** The vendor a collective run's advice is for: NVIDIA where the run says so, else AMD. */
export function collectiveVendor(run: Run): Vendor {
  return run.topology?.node.vendor === 'nvidia' ? 'nvidia' : 'amd';
}

/** The advice of a collective (or overlap) run from its records: what the panel shows and `sdma-lens advise` prints. */
export function collectiveAdviceOf(run: Run): CollectiveAdvice {
  return collectiveAdvice(
    collectiveVendor(run),
    run.collectiveVariants ?? [],
    run.collectives ?? [],
    run.overlaps ?? [],
    cusPerGpu(run),
  );
}

/** The fewest CUs (SMs) of the node's GPUs: what one rank's GPU has for compute. */
function cusPerGpu(run: Run): { cusPerGpu?: number } {
  const gpus = run.topology?.gpus ?? [];
  if (gpus.length === 0) return {};
  return { cusPerGpu: gpus.reduce((least, g) => Math.min(least, g.cus), Infinity) };
}

export function collectivePageView(run: Run): CollectivePageView {
  const points = run.collectives ?? [];
  const overlaps = run.overlaps ?? [];
  const variants = run.collectiveVariants ?? [];
  const advice = collectiveAdviceOf(run);
  const launcher = collectiveLauncherOf(variants);
  const simulated = isSimulated(run);
  const command = run.header.command === 'overlap' ? 'overlap' : 'collective';
  const notes = [...advice.notes];
  if (simulated)
    notes.unshift('Simulated node: these numbers show how the panel reasons, not settings for a real machine.');
  for (const w of run.warnings) notes.push(`${w.code}: ${w.message}`);
  for (const e of run.errors) notes.push(`error ${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
  for (const p of run.problems) notes.push(p);
  const recommendations = advice.recommendations.map((r) => ({
    knob: r.knob,
    value: r.value,
    evidence: r.evidence,
    confidence: r.confidence,
  }));
  return {
    runId: run.header.id,
    title: command === 'overlap' ? 'Compute overlap' : 'Collectives',
    command,
    status: runStatus(run),
    simulated,
    node: run.topology ? `${run.topology.node.model} x${run.topology.gpus.length}` : '',
    mode: collectiveModeOf(variants),
    ...(launcher !== undefined ? { launcher } : {}),
    progress: run.progress,
    variants,
    curves: curvesOf(points),
    crossovers: advice.crossovers,
    overlap: overlapView(overlaps),
    recommendations,
    cuBudget: advice.cuBudget,
    ...(advice.cus ? { cus: advice.cus } : {}),
    notes,
    // Checked against each knob's catalog type and written from the typed value; a refused one is a `# note:` line.
    exports: recommendations
      .filter((r) => r.value !== undefined)
      .map((r) => shellExport(r.knob, r.value!, knob))
      .join('\n'),
  };
}
