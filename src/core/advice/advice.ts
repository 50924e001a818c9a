/**
 * Settings advice as a pure function of a run: thresholds from measured crossovers,
 * NCCL_GIN_TYPE from the catalog for the detected library version, and the CU budget a
 * copy path leaves for compute. Every recommendation carries its evidence; where the data
 * cannot decide, the advice says so instead of guessing.
 */
import type { EndpointPair, PairKind } from '../endpoints';
import { comparePairs, pairKind, pairName, samePair } from '../endpoints';
import { standsForItsPath } from '../moverEvidence';
import type { Run } from '../run';
import { isSimulated } from '../run';
import type { GroupField } from '../sampleTable';
import { formatBytes } from '../units';
import { shellExport } from '../text';
import type { Crossover } from './crossover';
import { crossoverAt, crossoversAt, indexRows, onCus } from './crossover';
import { bothFronts } from './fronts';
import { waveWord } from '../seriesKey';
import type { Knob, Library } from './knobs';
import { documentedFor, knob, sdmaValues } from './knobs';
import { describeRange, inRange } from './version';

export interface Recommendation {
  knob: string;
  library: Library;
  /** The value to set; absent when the advice is to look, not to set (e.g. an unknown version). */
  value?: string;
  evidence: string;
  basis: 'measured-crossover' | 'catalog' | 'prerequisite';
  confidence: 'clear' | 'uncertain' | 'none';
}

export interface CuBudget {
  totalCus: number;
  loadStoreCus: number;
  engineCus: number;
  computeCusWithLoadStore: number;
  computeCusWithEngine: number;
  /** computeCusWithEngine / computeCusWithLoadStore. */
  computeGain: number;
  measured: boolean;
  text: string;
}

export interface Advice {
  /** The endpoint pair advised on (-1 = host); absent when the run has no samples. */
  pair?: EndpointPair;
  /** `host → GPU 0`, `GPU 0 → GPU 1`, or "no endpoint pair measured". */
  pairLabel: string;
  simulated: boolean;
  vendor: 'amd' | 'nvidia' | 'unknown';
  loadStoreCus: number;
  /** The comparisons at the chosen CU count, host- and device-initiated. */
  focus: Crossover[];
  crossovers: Crossover[];
  recommendations: Recommendation[];
  cuBudget?: CuBudget;
  notes: string[];
}

export interface AdviceOptions {
  /** CUs the load/store path of the user's library occupies; the nearest measured count is used. */
  loadStoreCus?: number;
  /** The user's message sizes; default: the sizes of the run. */
  messageSizes?: number[];
  /** Library versions known from elsewhere; they override what the helper detected. */
  libraries?: Partial<Record<Library, string>>;
  /** The endpoint pair to advise on; default: the run's first GPU → GPU pair, else its first pair. */
  pair?: EndpointPair;
  /**
   * Wavefronts (warps) per CU of the user's load/store kernel: crossovers compare the load/store
   * series at this count (and engine/device issued at it, where measured). 0 or absent: the
   * default series (1024 threads per CU, what every run saved before holds).
   */
  wavesPerCu?: number;
}

const pairKey = (p: EndpointPair) => `${p.src}:${p.dst}`;

/**
 * Which of a run's samples stand for their paths, by endpoint pair, in one pass: as indices (in
 * run order), so a big run's samples are built when their pair is advised, one pair at a time,
 * rather than all held at once.
 */
function samplesByPair(run: Run): Map<string, { pair: EndpointPair; indices: number[] }> {
  const byPair = new Map<string, { pair: EndpointPair; indices: number[] }>();
  const samples = run.samples;
  if (samples.length === 0) return byPair;
  // Whether a sample stands for its path, and its pair, are read from the first sample of each
  // group alike in the fields they are made of (`pick`): no sample is built.
  const { group, first } = samples.groupsOf(PAIR_FIELDS);
  const ofGroup = first.map((i) => {
    const s = samples.pick(i, PAIR_FIELDS);
    // The runtime-default series and a sample whose evidence contradicts its label are not their paths' figures.
    return standsForItsPath(s) ? { key: pairKey(s), pair: { src: s.src, dst: s.dst } } : undefined;
  });
  for (let i = 0; i < samples.length; i++) {
    const mine = ofGroup[group[i]!];
    if (!mine) continue;
    const had = byPair.get(mine.key);
    if (had) had.indices.push(i);
    else byPair.set(mine.key, { pair: mine.pair, indices: [i] });
  }
  return byPair;
}

/** The fields of a sample `samplesByPair` reads: its pair, its series and its evidence (`standsForItsPath`). */
const PAIR_FIELDS = ['src', 'dst', 'series', 'moverEvidence'] as const satisfies readonly GroupField[];

/** The rows of a pair's group (none for a pair the run did not measure). */
const rowsOf = (group: { indices: number[] } | undefined): number[] => group?.indices ?? [];

const pairsOf = (byPair: Map<string, { pair: EndpointPair }>) =>
  [...byPair.values()].map((g) => g.pair).sort(comparePairs);

/** The pairs a run measured, in display order. */
export function runPairs(run: Run): EndpointPair[] {
  return pairsOf(samplesByPair(run));
}

/** Advice for every pair the run measured (one per pair; one without a pair for an empty run). */
export function adviseAllPairs(run: Run, options: AdviceOptions = {}): Advice[] {
  const byPair = samplesByPair(run);
  const pairs = pairsOf(byPair);
  return pairs.length === 0
    ? [adviseFromRun(run, options)]
    : pairs.map((pair) => adviseOnPair(run, pairs, pair, rowsOf(byPair.get(pairKey(pair))), { ...options, pair }));
}

/** What a fleet's figures read of one pair's advice: the pair, its focus crossovers' places, the settings' values. */
export interface FigureAdvice {
  pairLabel: string;
  focus: readonly Pick<Crossover, 'kind' | 'initiator' | 'estimateBytes' | 'fromBytes'>[];
  recommendations: readonly Pick<Recommendation, 'knob' | 'value'>[];
}

/**
 * `adviseAllPairs(run)`'s pairs, focus crossovers and recommendations' values, without what
 * only the words need (every CU count's comparison, the crossovers' explanations, the CU
 * budget): the same figures at a fraction of the cost, for a fleet of thousands of nodes.
 */
export function adviseForFigures(run: Run): FigureAdvice[] {
  const byPair = samplesByPair(run);
  const pairs = pairsOf(byPair);
  return pairs.length === 0
    ? [adviseFromRun(run)]
    : pairs.map((pair) => adviseOnPair(run, pairs, pair, rowsOf(byPair.get(pairKey(pair))), { pair }, true));
}

/** The distinct values of `xs` (sizes: no NaN), ascending. */
function distinctAscending(xs: Float64Array): number[] {
  xs.sort();
  const out: number[] = [];
  for (let i = 0; i < xs.length; i++) if (i === 0 || xs[i] !== xs[i - 1]) out.push(xs[i]!);
  return out;
}

/** RCCL's channel count on MI300-class GPUs: AMD's "1 CU instead of 64" comparison. */
export const DEFAULT_LOAD_STORE_CUS = 64;

function nearest(values: number[], target: number): number | undefined {
  return values.reduce<number | undefined>(
    (best, x) =>
      best === undefined || Math.abs(Math.log2(x / target)) < Math.abs(Math.log2(best / target)) ? x : best,
    undefined,
  );
}

/** The catalog library a topology's library name stands for. */
function libraryOf(topologyName: string): Library | undefined {
  const name = topologyName.toLowerCase();
  if (name === 'rccl' || name === 'nccl' || name === 'rocshmem' || name === 'mori' || name === 'rocr') return name;
  if (name === 'hsa-runtime' || name === 'rocm') return 'rocr';
  if (name === 'hip-runtime') return 'clr';
  return undefined;
}

/** Where a library version came from, in words: the caller's setting or flag, or the run's topology. */
function versionSource(run: Run, options: AdviceOptions, library: Library): string | undefined {
  if (options.libraries?.[library] !== undefined) return 'version given to the advice';
  return run.topology?.libraries?.some((l) => libraryOf(l.name) === library)
    ? `version the helper read on ${run.topology.node.name}`
    : undefined;
}

function detectedVersions(run: Run, overrides: AdviceOptions['libraries']): Partial<Record<Library, string>> {
  const found: Partial<Record<Library, string>> = {};
  for (const lib of run.topology?.libraries ?? []) {
    const library = libraryOf(lib.name);
    if (library) found[library] ??= lib.version;
  }
  return { ...found, ...(overrides ?? {}) };
}

/** The knob's value in its own unit (bytes, KiB, elements of `elementBytes`) for a byte threshold. */
function inKnobUnits(k: Knob, bytes: number, round: 'up' | 'down'): number {
  const per = k.scale === 'KiB' ? 1024 : k.scale === 'elements' ? ELEMENT_BYTES : 1;
  return round === 'up' ? Math.ceil(bytes / per) : Math.floor(bytes / per);
}

/** Bytes per element assumed where a knob counts elements (float32). */
const ELEMENT_BYTES = 4;

/** Whether the knob sends a copy of `bytes` to the engine at `value` (in the knob's unit). */
export function engineAt(k: Knob, value: number, bytes: number): boolean {
  const per = k.scale === 'KiB' ? 1024 : k.scale === 'elements' ? ELEMENT_BYTES : 1;
  const size = bytes / per;
  switch (k.comparison ?? 'gt') {
    case 'gt':
      return size > value;
    case 'ge':
      return size >= value;
    case 'lt':
      return size < value;
    case 'le':
      return size <= value;
  }
}

/** The user's sizes whose path the value changes against the knob's default, in words. */
function pathChanges(k: Knob, value: number, sizes: number[]): string {
  const def = k.default !== null && /^\d+$/.test(k.default) ? Number(k.default) : undefined;
  if (def === undefined) return '';
  const moved = [...new Set(sizes)].sort((a, b) => a - b).filter((b) => engineAt(k, value, b) !== engineAt(k, def, b));
  if (moved.length === 0)
    return ` None of your sizes changes path against the default (${def} ${k.scale ?? ''}).`.replace(' )', ')');
  const toEngine = moved.filter((b) => engineAt(k, value, b)).map(formatBytes);
  const toCu = moved.filter((b) => !engineAt(k, value, b)).map(formatBytes);
  return ` Against the default (${def}): ${[toEngine.length ? `${toEngine.join(', ')} move to SDMA` : '', toCu.length ? `${toCu.join(', ')} move to CUs` : ''].filter(Boolean).join('; ')}.`;
}

function unitWords(k: Knob): string {
  return k.unit;
}

/** Byte thresholds are given in whole KiB from 4 KiB up: finer than any crossover's spread. */
const roundBytes = (b: number) => (b >= 4096 ? Math.round(b / 1024) * 1024 : Math.round(b));

/** The value of a `gt`/`ge` threshold at crossover `c` (what `followCrossover` gives, without its words). */
function followValue(k: Knob, c: Crossover): number {
  const comparison = k.comparison === 'ge' ? 'ge' : 'gt';
  const cross =
    c.kind === 'crossover' && c.estimateBytes !== undefined
      ? roundBytes(c.estimateBytes)
      : Math.max(0, c.fromBytes! - 1);
  // gt: sizes above the value go to the engine, so the value is the crossing rounded down; ge: at it, rounded up.
  let value = comparison === 'ge' ? inKnobUnits(k, cross, 'up') : inKnobUnits(k, cross, 'down');
  if (c.kind === 'engine-always' && !engineAt(k, value, c.fromBytes!))
    value =
      comparison === 'ge'
        ? inKnobUnits(k, c.fromBytes!, 'down')
        : Math.max(0, inKnobUnits(k, c.fromBytes! - 1, 'down'));
  return value;
}

/**
 * A `gt`/`ge` threshold placed at the crossing itself (its estimate between the two measured
 * sizes around it, or below the smallest size when the engine led everywhere), never snapped to
 * a measured or user size: then no size the crossover puts on the faster path stays on the
 * slower one. The user's sizes are listed by the path the value gives them, and those inside the
 * crossing's range, where the two paths are within their spread, are named as such.
 */
export function followCrossover(
  k: Knob,
  c: Crossover,
  messageSizes: number[],
  measured: [number, number],
): { value: number; words: string; sizes: string } {
  const comparison = k.comparison === 'ge' ? 'ge' : 'gt';
  const value = followValue(k, c);
  const range = c.rangeBytes
    ? ` (between ${formatBytes(Math.round(c.rangeBytes[0]))} and ${formatBytes(Math.round(c.rangeBytes[1]))})`
    : '';
  const where =
    c.kind === 'crossover' && c.estimateBytes !== undefined
      ? `the measured crossover near ${formatBytes(Math.round(c.estimateBytes))}${range}`
      : `the engine's lead at every measured size from ${formatBytes(c.fromBytes!)}`;
  const words = `${k.name}=${value} (${unitWords(k)}, engine when the size is ${comparison === 'gt' ? 'above' : 'at least'} it) follows ${where} against ${c.cu}${onCus(c.cus)}`;
  const userSizes = [...new Set(messageSizes)].sort((a, b) => a - b);
  const near = (b: number) => c.rangeBytes !== undefined && b >= c.rangeBytes[0] && b <= c.rangeBytes[1];
  const onEngine = userSizes.filter((b) => engineAt(k, value, b));
  const onCu = userSizes.filter((b) => !engineAt(k, value, b));
  const list = (xs: number[]) =>
    xs
      .map((b) => `${formatBytes(b)}${near(b) ? ' (near the crossing: either path within its spread)' : ''}`)
      .join(', ');
  const outside = userSizes.filter((b) => b < measured[0] || b > measured[1]);
  const sizes = `of your sizes, ${onEngine.length ? `${list(onEngine)} go to SDMA` : 'none goes to SDMA'}${onCu.length ? `, ${list(onCu)} stay on CUs` : ''}${outside.length ? ` (${outside.map(formatBytes).join(', ')} outside the measured ${formatBytes(measured[0])}..${formatBytes(measured[1])}: extrapolated)` : ''}`;
  return { value, words, sizes };
}

/** `explain` false: the value alone, its evidence left empty (a fleet's figures read only the value). */
function thresholdAdvice(
  k: Knob,
  c: Crossover,
  messageSizes: number[],
  measured: [number, number],
  note: string,
  explain = true,
): Recommendation {
  const comparison = k.comparison ?? 'gt';
  const cite = ` (${k.reader}; ${k.source})`;
  if (comparison === 'lt' || comparison === 'le') {
    // An engine-below knob (HSA_FORCE_SDMA_SIZE): SDMA for the small copies where it leads.
    const lead = c.verdicts.findIndex((x) => x.verdict !== 'engine');
    const engineUpTo = lead < 0 ? c.verdicts.at(-1)?.sizeBytes : lead > 0 ? c.verdicts[lead - 1]!.sizeBytes : undefined;
    const firstCu = lead >= 0 ? c.verdicts[lead]!.sizeBytes : undefined;
    if (c.verdicts.length === 0 || c.kind === 'insufficient')
      return {
        knob: k.name,
        library: k.library,
        evidence: `${c.explanation} No value is suggested${note}.${cite}`,
        basis: 'measured-crossover',
        confidence: 'none',
      };
    const bytes = engineUpTo === undefined ? 0 : (firstCu ?? engineUpTo + 1);
    const value = comparison === 'lt' ? inKnobUnits(k, bytes, 'up') : inKnobUnits(k, engineUpTo ?? 0, 'down');
    const confidence = c.verdicts.some((x) => x.verdict === 'tie')
      ? 'uncertain'
      : c.confidence === 'none'
        ? 'uncertain'
        : c.confidence;
    if (!explain)
      return {
        knob: k.name,
        library: k.library,
        value: String(value),
        evidence: '',
        basis: 'measured-crossover',
        confidence,
      };
    const said =
      engineUpTo === undefined
        ? `${c.cu}${onCus(c.cus)} led from the smallest size measured (${formatBytes(measured[0])}): SDMA for none of them`
        : `SDMA led up to ${formatBytes(engineUpTo)}${firstCu !== undefined ? `, ${c.cu}${onCus(c.cus)} from ${formatBytes(firstCu)}` : ' (every size measured)'}`;
    return {
      knob: k.name,
      library: k.library,
      value: String(value),
      evidence: `${said}: copies ${comparison === 'lt' ? 'smaller than' : 'of at most'} ${value} ${unitWords(k)} go to SDMA${note}.${pathChanges(k, value, messageSizes)}${cite}`,
      basis: 'measured-crossover',
      confidence,
    };
  }
  if (c.kind === 'crossover' || c.kind === 'engine-always') {
    if (!explain)
      return {
        knob: k.name,
        library: k.library,
        value: String(followValue(k, c)),
        evidence: '',
        basis: 'measured-crossover',
        confidence: c.confidence,
      };
    const rec = followCrossover(k, c, messageSizes, measured);
    return {
      knob: k.name,
      library: k.library,
      value: String(rec.value),
      evidence: `${rec.words}${note}: ${rec.sizes}.${pathChanges(k, rec.value, messageSizes)}${cite}`,
      basis: 'measured-crossover',
      confidence: c.confidence,
    };
  }
  if (c.kind === 'cu-always') {
    const value = inKnobUnits(k, measured[1], 'up');
    return {
      knob: k.name,
      library: k.library,
      value: String(value),
      evidence: explain
        ? `${c.cu}${onCus(c.cus)} beat ${c.engine} at every measured size up to ${formatBytes(measured[1])}: keep SDMA off in this range${note}.${pathChanges(k, value, messageSizes)}${cite}`
        : '',
      basis: 'measured-crossover',
      confidence: c.confidence,
    };
  }
  return {
    knob: k.name,
    library: k.library,
    evidence: `${c.explanation} No value is suggested${note}.${cite}`,
    basis: 'measured-crossover',
    confidence: 'none',
  };
}

function ginTypeAdvice(version: string | undefined, source: string | undefined): Recommendation {
  const k = knob('NCCL_GIN_TYPE')!;
  if (version !== undefined) {
    const values = sdmaValues(k, version);
    if (values.length === 1) {
      const v0 = values[0]!;
      const sure =
        v0.confidence === 'guess'
          ? " The version boundary for this value is a guess from the library's change history, not a release note."
          : '';
      return {
        knob: k.name,
        library: 'rccl',
        value: v0.value,
        evidence: `RCCL ${version}${source ? ` (${source})` : ''} selects Anvil SDMA with ${v0.value} (${describeRange(v0.versions)}).${sure} Verify on the node: NCCL_DEBUG=INFO names the GIN backend the communicator took. (${k.source})`,
        basis: 'catalog',
        confidence: v0.confidence === 'guess' ? 'uncertain' : 'clear',
      };
    }
  }
  const options = sdmaValues(k, undefined)
    .map((x) => `${x.value} for RCCL ${describeRange(x.versions)}`)
    .join('; ');
  return {
    knob: k.name,
    library: 'rccl',
    evidence: `${version === undefined ? 'The RCCL version on this node was not detected' : `RCCL ${version} has no GIN SDMA backend in the catalog`}, so no value is set: the number that means Anvil SDMA changed across releases (${options}). Give the version (${bothFronts('rcclVersion', 'X')}), or run on the node.`,
    basis: 'catalog',
    confidence: 'none',
  };
}

function cuBudget(
  run: Run,
  loadStoreCus: number,
  pair: EndpointPair | undefined,
  assumed: boolean,
): CuBudget | undefined {
  const src = pair ? (pair.src >= 0 ? pair.src : pair.dst) : 0;
  const total = run.topology?.gpus.find((g) => g.index === src)?.cus;
  if (!total || loadStoreCus >= total) return undefined;
  const engineCus = 1;
  const withLs = total - loadStoreCus;
  const withEngine = total - engineCus;
  const gain = withEngine / withLs;
  return {
    totalCus: total,
    loadStoreCus,
    engineCus,
    computeCusWithLoadStore: withLs,
    computeCusWithEngine: withEngine,
    computeGain: gain,
    measured: false,
    text: `${assumed ? `The ${loadStoreCus} CUs of the load/store path are assumed (RCCL's channel count on MI300-class GPUs, not read from your library's log; set the CUs your library uses to change it). ` : ''}A load/store copy on ${loadStoreCus} CUs leaves ${withLs} of ${total} CUs for compute; GPU-initiated SDMA occupies ${engineCus} CU and leaves ${withEngine}: up to ${gain.toFixed(2)}x the compute CUs (${withEngine}/${withLs}). This is CU arithmetic; an overlap run measures what the copy really costs the math.`,
  };
}

/** What a host copy (hipMemcpy / cudaMemcpyAsync) runs on, and what decides it, for host and GPU-local pairs. */
function hostCopyAdvice(
  kind: PairKind,
  vendor: Advice['vendor'],
  label: string,
  host: Crossover | undefined,
  messageSizes: number[],
  measured: [number, number],
  recommendations: Recommendation[],
  notes: string[],
  explain: boolean,
): void {
  notes.push(
    `engine/device and cu/device between ${label}: a device-initiated engine path (GPU-initiated SDMA, a proxied copy-engine put) needs two distinct GPUs, so it does not exist for ${kind === 'local' ? 'a GPU-local copy' : 'host memory'}; the GIN and rocSHMEM thresholds do not apply.`,
  );
  if (vendor === 'nvidia') {
    notes.push(
      `NVIDIA, ${label}: cudaMemcpyAsync runs on the copy engines (CE); there is no public switch that moves it to SMs. An SM copy is a kernel of your own (cu/host here), so the choice is in the code, not in a setting.`,
    );
    return;
  }
  // HSA_ENABLE_SDMA / HSA_ENABLE_PEER_SDMA turn an engine off for the whole process: said, never set.
  const off = knob('HSA_ENABLE_SDMA')!;
  if (host && host.kind === 'cu-always') {
    notes.push(
      `${label}: blit kernels on CUs beat the SDMA engine at every size measured (${formatBytes(measured[0])}..${formatBytes(measured[1])}). The only switch for these copies is ${off.name}=0, which turns SDMA off for every copy of the process: SDMA Lens does not suggest it; a copy kernel of your own for these copies is the targeted change. (${off.source})`,
    );
  }
  if (kind !== 'local') {
    notes.push(
      `${label}: hipMemcpy between host and GPU runs on an SDMA engine (ROCr); no size threshold moves it (HSA_FORCE_SDMA_SIZE governs only copies within one GPU, ROC_P2P_SDMA_SIZE only copies between GPUs).`,
    );
    return;
  }
  const force = knob('HSA_FORCE_SDMA_SIZE')!;
  if (host)
    recommendations.push(
      thresholdAdvice(
        force,
        host,
        messageSizes,
        measured,
        ` (copies within one GPU through ROCr: hsa_amd_memory_async_copy; hipMemcpy within a GPU is CLR's blit kernel unless its kind is hipMemcpyDeviceToDeviceNoCU)`,
        explain,
      ),
    );
}

/** CLR's default cut for peer copies (ROC_P2P_SDMA_SIZE = 1024 KiB): at or below it a blit kernel copies. */
const P2P_SDMA_DEFAULT_BYTES = 1024 * 1024;

/** Whether the run records that CLR's blit cuts were 0 while it measured, so every host-started engine sample was SDMA. */
export function engineForced(run: Run): boolean {
  const set = run.hello?.runtimeKnobs ?? [];
  return ['ROC_P2P_SDMA_SIZE', 'GPU_FORCE_BLIT_COPY_SIZE'].every((name) =>
    set.some((k) => k.name === name && k.value === '0'),
  );
}

const UNFORCED_ENGINE_NOTE =
  'This run does not record that ROC_P2P_SDMA_SIZE and GPU_FORCE_BLIT_COPY_SIZE were 0 while it measured (an older run, or one imported): CLR copies between GPUs of at most ROC_P2P_SDMA_SIZE KiB (default 1024) with a blit kernel on the CUs, so its engine/host samples up to 1 MiB may not have been SDMA, and host-initiated thresholds below 1 MiB are uncertain. Measure again with this version of the helper, which sets both to 0 for engine measurements (ROCm/clr rocclr/device/rocm/rocblit.cpp, KernelBlitManager::copyBuffer).';

const LIBRARY_WORDS: Record<Library, string> = {
  rccl: 'RCCL',
  'rccl-tests': 'rccl-tests',
  rocshmem: 'rocSHMEM',
  rocr: 'ROCr',
  clr: 'the HIP runtime (CLR)',
  mori: 'mori',
  nccl: 'NCCL',
};

/**
 * Which version of the knob's library a recommendation assumed and where it came from; a known
 * version outside the knob's range takes the value away (the library would not read it).
 */
function assumeVersion(r: Recommendation, version: string | undefined, source: string | undefined): Recommendation {
  const k = knob(r.knob);
  if (!k) return r;
  const lib = LIBRARY_WORDS[k.library];
  if (version === undefined) {
    return {
      ...r,
      evidence: `${r.evidence} Assumes ${lib} ${describeRange(k.versions)}, where ${k.name} works as described; the version on the node was not detected.`,
    };
  }
  if (!inRange(version, k.versions)) {
    const { value: _dropped, ...rest } = r;
    return {
      ...rest,
      evidence: `${r.evidence} ${lib} ${version} (${source ?? 'detected'}) is outside ${describeRange(k.versions)}, where ${k.name} exists: no value is suggested.`,
      confidence: 'none',
    };
  }
  return { ...r, evidence: `${r.evidence} Assumes ${lib} ${version} (${source ?? 'detected'}).` };
}

export function adviseFromRun(run: Run, options: AdviceOptions = {}): Advice {
  const byPair = samplesByPair(run);
  const pairs = pairsOf(byPair);
  const pair = options.pair ?? pairs.find((p) => pairKind(p) === 'peer') ?? pairs[0];
  return adviseOnPair(
    run,
    pairs,
    pair,
    pair ? rowsOf(byPair.get(pairKey(pair))) : Array.from({ length: run.samples.length }, (_, i) => i),
    options,
  );
}

/**
 * The advice for `pair` (of the run's `pairs`) from its samples (`rows` of the run's table,
 * read from the columns: `indexRows`). `lean`: only what
 * `FigureAdvice` holds is whole (no comparison at the other CU counts, no explanations of the
 * crossovers, no CU budget).
 */
function adviseOnPair(
  run: Run,
  pairs: EndpointPair[],
  pair: EndpointPair | undefined,
  rows: readonly number[],
  options: AdviceOptions,
  lean = false,
): Advice {
  const notes: string[] = [];
  const kind = pair ? pairKind(pair) : 'peer';
  const pairLabel = pair ? pairName(pair) : 'no endpoint pair measured';
  if (pair && pairs.length > 1)
    notes.push(
      `Advice for ${pairLabel}; the run also measured ${pairs
        .filter((p) => !samePair(p, pair))
        .map(pairName)
        .join(', ')} (${bothFronts('pair', 'SRC:DST')}).`,
    );
  const simulated = isSimulated(run);
  const vendor = run.topology?.node.vendor ?? 'unknown';
  // Each initiator is compared at the CU count nearest the user's among those measured for it:
  // a sweep may measure cu/host and cu/device at different counts.
  const wantedCus = options.loadStoreCus ?? DEFAULT_LOAD_STORE_CUS;
  // One index of the samples for every comparison below (each sample's spread computed once).
  const wantedWaves = options.wavesPerCu !== undefined && options.wavesPerCu > 0 ? options.wavesPerCu : undefined;
  const index = indexRows(run.samples, rows, wantedWaves !== undefined ? { wavesPerCu: wantedWaves } : {});
  const cusFor = (initiator: 'host' | 'device') => nearest([...index[initiator].cuByCus.keys()], wantedCus);
  const sizes = distinctAscending(run.samples.numbersOf('sizeBytes', rows));
  const measured: [number, number] = [sizes[0] ?? 0, sizes.at(-1) ?? 0];
  const messageSizes = options.messageSizes && options.messageSizes.length > 0 ? options.messageSizes : sizes;
  const focus = (['host', 'device'] as const)
    .filter((i) => index[i].engineBySize.size > 0 && index[i].cuByCus.size > 0)
    .map((i) => crossoverAt(index, i, cusFor(i)!, !lean));
  for (const c of focus) {
    if (options.loadStoreCus !== undefined && c.cus !== wantedCus)
      notes.push(
        `No ${c.cu} copy was measured on ${wantedCus} CUs; ${c.initiator}-initiated copies are compared with ${c.cus}, the nearest count measured for them.`,
      );
  }
  for (const c of focus) {
    // The wavefronts compared: the user's, else the default threads; the nearest series measured where the run lacks it.
    if (wantedWaves !== undefined && c.wavesPerCu !== wantedWaves)
      notes.push(
        `No ${c.cu} copy was measured at ${waveWord(c.waveSize, wantedWaves)} per CU; ${c.initiator}-initiated copies are compared with ${c.wavesPerCu !== undefined ? `${waveWord(c.waveSize, c.wavesPerCu)} per CU` : 'the default 1024 threads per CU'}, the nearest measured.`,
      );
    else if (wantedWaves === undefined && c.wavesPerCu !== undefined)
      notes.push(
        `The run has no ${c.cu} series at the default 1024 threads per CU; ${c.initiator}-initiated copies are compared with ${waveWord(c.waveSize, c.wavesPerCu)} per CU, the nearest measured (choose with ${bothFronts('waves')}).`,
      );
    else if (wantedWaves !== undefined)
      notes.push(
        `${c.initiator}-initiated copies are compared at ${waveWord(c.waveSize, wantedWaves)} per CU, as asked.`,
      );
  }
  const host = focus.find((c) => c.initiator === 'host');
  const device = focus.find((c) => c.initiator === 'device');
  // The library's load/store path in the CU budget: the device-initiated one where it was measured.
  const loadStoreCus = (device ?? host)?.cus ?? wantedCus;
  const versions = detectedVersions(run, options.libraries);
  const recommendations: Recommendation[] = [];
  if (simulated)
    notes.push(
      'These numbers come from the simulated MI350X node: the advice shows how SDMA Lens reasons, not settings for a real machine.',
    );
  if (rows.length === 0) notes.push('The run has no samples yet.');

  if (kind !== 'peer') {
    hostCopyAdvice(kind, vendor, pairLabel, host, messageSizes, measured, recommendations, notes, !lean);
  } else if (vendor === 'amd' || vendor === 'unknown') {
    if (device) {
      // Per put: the GIN Anvil backend (librccl) and rocSHMEM compare each put with their threshold.
      recommendations.push(
        thresholdAdvice(
          knob('NCCL_GIN_ANVIL_SDMA_THRESHOLD')!,
          device,
          messageSizes,
          measured,
          ', for each GIN put (Anvil SDMA backend)',
          !lean,
        ),
      );
      recommendations.push(
        thresholdAdvice(
          knob('ROCSHMEM_SDMA_THRESHOLD')!,
          device,
          messageSizes,
          measured,
          ', for each rocSHMEM put',
          !lean,
        ),
      );
      const a2a = thresholdAdvice(
        knob('NCCL_GIN_A2A_SDMA_MIN_BYTES')!,
        device,
        messageSizes,
        measured,
        ", for ncclAlltoAll's in-library GIN path per peer; estimated from the point-to-point crossover (a collective sweep measures it). Verify on the node: RCCL logs 'AllToAll GIN: transport=sdma' at NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL",
        !lean,
      );
      if (a2a.confidence === 'clear') a2a.confidence = 'uncertain';
      recommendations.push(a2a);
      notes.push(
        "NCCL_GIN_ANVIL_SDMA_THRESHOLD_{ALLGATHER,ALLTOALL,BROADCAST} are read only by rccl-tests' device-API kernels (-D 3), never by librccl's collectives: SDMA Lens suggests them only for an imported rccl-tests run.",
      );
    } else {
      notes.push(
        'No device-initiated paths in this run: the GIN and rocSHMEM thresholds need cu/device and engine/device.',
      );
    }
    if (host) {
      // Host-started copies between GPUs: CLR's cut (KiB), not ROCr's.
      const r = thresholdAdvice(
        knob('ROC_P2P_SDMA_SIZE')!,
        host,
        messageSizes,
        measured,
        ' (hipMemcpy / hipMemcpyPeer between the two GPUs)',
        !lean,
      );
      if (r.value !== undefined)
        r.evidence += ` Keep GPU_FORCE_BLIT_COPY_SIZE at 0 (its default): it would send copies up to its own size to blit kernels whatever ROC_P2P_SDMA_SIZE says.`;
      if (vendor === 'amd' && !engineForced(run)) {
        notes.push(UNFORCED_ENGINE_NOTE);
        if (r.value !== undefined && Number(r.value) * 1024 < P2P_SDMA_DEFAULT_BYTES && r.confidence === 'clear')
          r.confidence = 'uncertain';
      }
      recommendations.push(r);
    }
    // NCCL_GIN_TYPE and the GIN prerequisites serve the device-initiated path: only where it was measured.
    if (device) {
      recommendations.push(ginTypeAdvice(versions.rccl, versionSource(run, options, 'rccl')));
      for (const name of ['NCCL_GIN_ENABLE', 'NCCL_CUMEM_ENABLE', 'NCCL_DMABUF_ENABLE', 'HSA_NO_SCRATCH_RECLAIM']) {
        const k = knob(name)!;
        recommendations.push({
          knob: name,
          library: k.library,
          value: k.recommended ?? '1',
          evidence: `Prerequisite of the GIN SDMA path: ${k.meaning} (${k.source})`,
          basis: 'prerequisite',
          confidence: 'clear',
        });
      }
    }
  } else if (host) {
    const k = knob('NCCL_SYM_CE_THRESHOLD')!;
    const arch = run.topology?.gpus.find(
      (g) => g.index === (pair && pair.src >= 0 ? pair.src : (pair?.dst ?? 0)),
    )?.arch;
    const applies = documentedFor(k, arch);
    if (applies === 'no') {
      notes.push(
        `${k.name} acts only on ${k.hardware!.name}; this node's GPU is ${arch}, where NCCL never reads it: no value is suggested. (${k.source})`,
      );
    } else {
      const r = thresholdAdvice(
        k,
        host,
        messageSizes,
        measured,
        ` (symmetric AllGather with the default CTA policy; elements of ${ELEMENT_BYTES} bytes assumed)`,
        !lean,
      );
      if (applies !== 'yes') {
        r.evidence += ` It acts only on ${k.hardware!.name}; the GPU architecture was not reported.`;
        if (r.confidence === 'clear') r.confidence = 'uncertain';
      }
      recommendations.push(r);
    }
  }
  if (vendor === 'unknown' && recommendations.length > 0)
    notes.push(
      'The run does not say whose GPUs it measured (an imported output that names none): the settings below are the AMD ones (RCCL, rocSHMEM, ROCr); on NVIDIA GPUs they do not apply.',
    );
  const assumed = recommendations.map((r) =>
    r.knob === 'NCCL_GIN_TYPE'
      ? r
      : assumeVersion(
          r,
          versions[knob(r.knob)?.library ?? 'rccl'],
          versionSource(run, options, knob(r.knob)?.library ?? 'rccl'),
        ),
  );
  return {
    ...(pair ? { pair } : {}),
    pairLabel,
    simulated,
    vendor,
    loadStoreCus,
    focus,
    crossovers: lean ? [] : crossoversAt(index),
    recommendations: assumed,
    cuBudget:
      kind === 'peer' && !lean ? cuBudget(run, loadStoreCus, pair, options.loadStoreCus === undefined) : undefined,
    notes,
  };
}

/**
 * `export NAME=value` lines for the recommendations that carry a value, each checked against
 * the knob's catalog type and written from the typed value (`shellExport`); a value that is
 * not of its knob's type is a `# note:` line saying which knob was skipped and why.
 */
export function shellExports(advice: Advice): string {
  return advice.recommendations
    .filter((r) => r.value !== undefined)
    .map((r) => shellExport(r.knob, r.value!, knob))
    .join('\n');
}
