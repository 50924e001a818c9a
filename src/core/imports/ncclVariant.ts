/**
 * Which collective variant an nccl-tests or rccl-tests output ran, and how its ranks were
 * placed in processes, from what the file itself shows: the command line (`args` of the JSON
 * of -J; the text output prints none), the environment (the JSON's `env`, or the
 * `NCCL INFO ... set by environment to ...` lines of a run with NCCL_DEBUG=INFO), the library
 * version and the Rank lines. What the file does not show is said in `unknowns`, never
 * guessed. docs/IMPORT.md ("How the variant and the mode are decided") cites the sources:
 *
 * - the options: NVIDIA/nccl-tests a0b82b2 (2.19.6) src/common.cu `main` and ROCm/rocm-systems
 *   032d8f6 projects/rccl-tests/src/common.cu `main` (getopt_long: -D/--device_implementation,
 *   -R/--local_register, -x/--cta_policy, -V/--device_cta_count); neither tool prints them in
 *   its text header (src/util.cu `writeDeviceReport` of both);
 * - what -D runs in alltoall_perf: rocm-systems 01d9952 projects/rccl-tests/src/alltoall.cu
 *   `AlltoAllGetDevCommRequirements` (1, 2: LSA kernels; 3: GinAlltoAllKernel; 4: LSA+GIN);
 * - the INFO lines: NVIDIA/nccl v2.28.9-1 src/misc/param.cc `ncclLoadParam`
 *   ("%s set by environment to %lld."), src/debug.cc (the "host:pid:tid [dev] NCCL INFO "
 *   prefix); RCCL's projects/rccl/src/misc/param.cc (rocm-systems 40cf641) prints the same;
 *   NCCL from 2.29.2 reads NCCL_CTA_POLICY in src/init.cc `getEnvCtaPolicyOnce`, which logs
 *   only a named value ("Parsed environment variable NCCL_CTA_POLICY=ZERO to 2");
 * - the JSON: `jsonOutputInit` writes `args` and `env` (the whole environment at start) and the
 *   library code (`nccl_version`, rccl-tests `rccl_version`); `parseRankInfo` reads one Rank
 *   line per process into `config.devices`.
 */
import { knob, sdmaValues } from '../advice/knobs';
import type { KnobValue } from '../advice/knobs';
import { compareVersions } from '../advice/version';
import type { CollectiveOp, CollectiveVariant, CollectiveVariantName, CollectiveMode } from '../protocol';

/** The variables that decide a variant; only these are kept from what the file shows. */
export const VARIANT_VARIABLES = [
  'NCCL_CTA_POLICY',
  'NCCL_GIN_ENABLE',
  'NCCL_GIN_TYPE',
  'NCCL_GIN_A2A_ENABLE',
  'NCCL_GIN_A2A_MIN_BYTES',
  'NCCL_GIN_A2A_SDMA_MIN_BYTES',
] as const;
type VariantVariable = (typeof VARIANT_VARIABLES)[number];
const IS_VARIANT_VARIABLE = new Set<string>(VARIANT_VARIABLES);

/** A value longer than this is kept cut, with an ellipsis (a value a library would read is a few characters). */
export const MAX_SHOWN_VALUE = 256;
/** NCCL formats a log line in 1024 bytes (src/debug.cc); a longer line is none of its INFO lines. */
export const MAX_INFO_LINE = 4096;

export type ImportedVariantName = Extract<
  CollectiveVariantName,
  'default' | 'ce' | 'gin-sdma-lib' | 'gin-sdma-dev' | 'unknown'
>;

/** Where a value was shown. */
type Where = 'JSON env' | 'NCCL INFO line';

interface Shown {
  value: string;
  where: Where;
  /** Several lines gave different values (ranks of one run read one environment each). */
  conflicting?: string;
}

/** What a parser collected for the variant, as printed. */
export interface VariantEvidence {
  tool: 'nccl-tests' | 'rccl-tests';
  format: 'text' | 'json';
  op?: CollectiveOp;
  /** Decoded library version ("2.28.9"), when printed. */
  libraryVersion?: string;
  /** The command line words (JSON `args`), undefined when the file has none. */
  args?: string[];
  /** The JSON's `env`: the whole environment at start; undefined when the file has none. */
  env?: Map<string, string>;
  /** From NCCL INFO lines. */
  info: InfoEnv;
  /** Each Rank line's (JSON: device's) pid; undefined where it did not read. */
  pids: (number | undefined)[];
  /** nThread x nGpus of the header (JSON: config): GPUs one process drives. */
  gpusPerProcess?: number;
}

/** The variables NCCL INFO lines said were set, and what could not be read. */
export class InfoEnv {
  readonly values = new Map<VariantVariable, Shown>();
  /** NCCL INFO lines seen (any subsystem). */
  lines = 0;
  /** Lines naming "NCCL INFO" that were too long to be NCCL's and were not read. */
  tooLong = 0;

  /** Reads one output line; returns true when it was an NCCL INFO line. */
  read(line: string): boolean {
    const at = line.indexOf(' NCCL INFO ');
    if (at < 0) return false;
    if (line.length > MAX_INFO_LINE) {
      this.tooLong++;
      return true;
    }
    this.lines++;
    const rest = line.slice(at + ' NCCL INFO '.length);
    // ncclLoadParam: "%s set by environment to %lld." (the number as strtoll read it).
    const set = /^([A-Z][A-Z0-9_]{0,63}) set by environment to (\S{1,64}?)\.?\s*$/.exec(rest);
    if (set) {
      this.put(set[1]!, set[2]!);
      return true;
    }
    // getEnvCtaPolicyOnce (NCCL 2.29.2 on): a named policy, and the number it became.
    const parsed = /^Parsed environment variable (NCCL_CTA_POLICY)=(.{1,256}) to (-?\d{1,10})\s*$/.exec(rest);
    if (parsed) this.put(parsed[1]!, parsed[2]!);
    return true;
  }

  private put(name: string, value: string): void {
    if (!IS_VARIANT_VARIABLE.has(name)) return;
    const key = name as VariantVariable;
    const before = this.values.get(key);
    if (!before) this.values.set(key, { value, where: 'NCCL INFO line' });
    else if (before.value !== value && before.conflicting === undefined) before.conflicting = value;
  }
}

/** The environment as the JSON's `env` list holds it ("NAME=value" each); only the variant's variables are kept. */
export function envOfList(list: unknown): Map<string, string> | undefined {
  if (!Array.isArray(list)) return undefined;
  const env = new Map<string, string>();
  for (const entry of list) {
    if (typeof entry !== 'string') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq > 64) continue;
    const name = entry.slice(0, eq);
    if (IS_VARIANT_VARIABLE.has(name) && !env.has(name)) env.set(name, entry.slice(eq + 1));
  }
  return env;
}

/** A value as data in one line of text: quoted (JSON) when it holds anything but plain characters, cut when long. */
export function shownValue(value: string): string {
  const cut = value.length > MAX_SHOWN_VALUE ? `${value.slice(0, MAX_SHOWN_VALUE)}…` : value;
  return /^[A-Za-z0-9_.:+|-]*$/.test(cut) ? cut : JSON.stringify(cut);
}

/**
 * An integer as strtol/strtoll with base 0 reads the front of a string (the tools' getopt
 * values, NCCL_PARAM's values): optional space and sign, then 0x hex, 0 octal or decimal;
 * undefined when no digit starts it or it is too long to be exact.
 */
export function cInteger(text: string): number | undefined {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]{1,13}|0[0-7]{0,17}|[1-9]\d{0,15})/.exec(text.slice(0, 64));
  if (!m) return undefined;
  const digits = m[2]!;
  const n = /^0[xX]/.test(digits)
    ? Number.parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith('0')
      ? Number.parseInt(digits.slice(1), 8)
      : Number(digits);
  if (!Number.isSafeInteger(n)) return undefined;
  return m[1] === '-' ? -n : n;
}

/** An option's value from a command line as getopt_long reads it: `-D 3`, `-D3`, `--device_implementation 3` or `--device_implementation=3`; the last one given wins. */
export function optionValue(args: readonly string[], short: string, long: string): string | undefined {
  let value: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a === `-${short}` || a === `--${long}`) {
      if (i + 1 < args.length) value = args[++i];
    } else if (a.startsWith(`--${long}=`)) value = a.slice(long.length + 3);
    else if (a.startsWith(`-${short}`) && !a.startsWith('--')) value = a.slice(2);
  }
  return value;
}

type Reading =
  | { kind: 'sdma'; value: KnobValue }
  | { kind: 'other'; meaning?: string }
  | { kind: 'ambiguous' }
  | { kind: 'unreadable' };

/**
 * What a value of a catalog knob means at a library version: one of its SDMA values
 * (sdmaValues), another value, or, with no version to choose by, either. Numbers compare as
 * the library reads them (strtoll base 0: "0x7" is 7); names without regard to case.
 */
function readKnob(name: string, raw: string, version: string | undefined, where?: Where): Reading {
  // NCCL prints the number it read ("%lld"): anything else on an INFO line is not NCCL's.
  if (where === 'NCCL INFO line' && !/^-?\d{1,19}$/.test(raw) && name !== 'NCCL_CTA_POLICY')
    return { kind: 'unreadable' };
  const k = knob(name);
  if (!k) return { kind: 'other' };
  const number = cInteger(raw);
  const same = (x: KnobValue) => {
    const n = cInteger(x.value);
    return n !== undefined && /^\s*[+-]?\d/.test(raw)
      ? n === number
      : x.value.toLowerCase() === raw.trim().toLowerCase();
  };
  const inVersion = (x: KnobValue) =>
    version === undefined ||
    ((x.versions.from === null || compareVersions(version, x.versions.from) >= 0) &&
      (x.versions.before === null || compareVersions(version, x.versions.before) < 0));
  const sdma = sdmaValues(k, version).filter(same);
  const others = (k.values ?? []).filter((x) => x.sdma !== true && same(x) && inVersion(x));
  if (sdma.length > 0 && others.length === 0) return { kind: 'sdma', value: sdma[0]! };
  if (sdma.length === 0) return { kind: 'other', ...(others[0] ? { meaning: others[0].meaning } : {}) };
  return { kind: 'ambiguous' };
}

export interface VariantDecision {
  variant: ImportedVariantName;
  mode: CollectiveMode;
  basis: string[];
  unknowns: string[];
  /** The variant's variables as the file showed them. */
  env: Record<string, string>;
  symmetric: boolean;
  /** One line: the variant, the mode and why. */
  note: string;
}

/** Decides the variant and the mode; see the file comment. */
export function decideVariant(e: VariantEvidence): VariantDecision {
  const basis: string[] = [];
  const unknowns: string[] = [];
  const version = e.libraryVersion;
  const library = e.tool === 'rccl-tests' ? 'RCCL' : 'NCCL';
  const versionWords = version ? `${library} ${version}` : `the ${library} version (not printed)`;

  // ---- what the file shows of the environment ----
  const shown = new Map<VariantVariable, Shown>();
  for (const name of VARIANT_VARIABLES) {
    const fromEnv = e.env?.get(name);
    const fromInfo = e.info.values.get(name);
    if (fromEnv !== undefined) shown.set(name, { value: fromEnv, where: 'JSON env' });
    else if (fromInfo) shown.set(name, fromInfo);
  }
  const env: Record<string, string> = {};
  for (const [name, s] of shown)
    env[name] = s.value.length > MAX_SHOWN_VALUE ? `${s.value.slice(0, MAX_SHOWN_VALUE)}…` : s.value;
  const fact = (name: VariantVariable) => {
    const s = shown.get(name)!;
    return `${name}=${shownValue(s.value)} (${s.where})`;
  };
  const conflicts = [...shown].filter(([, s]) => s.conflicting !== undefined);
  for (const [name, s] of conflicts)
    basis.push(
      `${name} is shown with two values, ${shownValue(s.value)} and ${shownValue(s.conflicting!)} (NCCL INFO lines)`,
    );

  // ---- what the file shows of the command line ----
  const args = e.args;
  const arg = (short: string, long: string) => (args ? optionValue(args, short, long) : undefined);
  const deviceText = arg('D', 'device_implementation');
  const registerText = arg('R', 'local_register');
  const ctaText = arg('x', 'cta_policy');
  const device = deviceText === undefined ? (args ? 0 : undefined) : cInteger(deviceText);
  const symmetric = registerText !== undefined && cInteger(registerText) === 2;
  if (args) {
    const words = [
      deviceText !== undefined ? `-D ${shownValue(deviceText)}` : undefined,
      registerText !== undefined ? `-R ${shownValue(registerText)}` : undefined,
      ctaText !== undefined ? `-x ${shownValue(ctaText)}` : undefined,
    ].filter((w): w is string => w !== undefined);
    if (words.length > 0) basis.push(`command line: ${words.join(' ')}`);
  } else
    unknowns.push(
      `the command line is not in a ${e.format} output (-D device-API kernel, -R buffer registration, -x CTA policy)`,
    );
  if (e.format === 'json' && !e.env) unknowns.push('the environment is not in the file (the JSON has no env list)');
  if (e.format === 'json' && e.env)
    unknowns.push(
      `settings read from NCCL_CONF_FILE or ${e.tool === 'rccl-tests' ? '~/.rccl.conf, /etc/rccl.conf' : '~/.nccl.conf, /etc/nccl.conf'} are not in the JSON env (the environment at start)`,
    );
  if (e.format === 'text' && e.info.lines === 0)
    unknowns.push(
      'the environment (NCCL_CTA_POLICY, NCCL_GIN_TYPE, NCCL_GIN_ENABLE) is not in the file: it has no NCCL INFO lines (NCCL_DEBUG=INFO)',
    );
  if (e.format === 'text' && e.info.lines > 0 && !shown.has('NCCL_CTA_POLICY'))
    unknowns.push(
      'NCCL_CTA_POLICY given as a number prints no INFO line from NCCL 2.29.2 on (getEnvCtaPolicyOnce), so the INFO lines do not rule it out',
    );
  if (e.info.tooLong > 0)
    unknowns.push(`${e.info.tooLong} NCCL INFO line(s) longer than ${MAX_INFO_LINE} characters were not read`);

  // ---- the decision ----
  let variant: ImportedVariantName;
  const ginType = shown.get('NCCL_GIN_TYPE');
  const ginReading = ginType ? readKnob('NCCL_GIN_TYPE', ginType.value, version, ginType.where) : undefined;
  const inWords = version ? `for ${versionWords}` : 'in every version the catalog knows (the version is not printed)';
  const ginWords = (r: Reading | undefined) =>
    !r
      ? ''
      : r.kind === 'sdma'
        ? `: Anvil SDMA ${inWords}${r.value.confidence === 'guess' ? ' (the catalog marks this number a guess)' : ''}`
        : r.kind === 'ambiguous'
          ? `: Anvil SDMA or another backend, by ${versionWords}`
          : r.kind === 'unreadable'
            ? ': not a number as the library prints it'
            : `: not Anvil SDMA ${inWords}${r.meaning ? ` (${r.meaning})` : ''}`;
  if (conflicts.length > 0) variant = 'unknown';
  else if (device === undefined && deviceText !== undefined) {
    basis.push(`-D ${shownValue(deviceText)} is not a number`);
    variant = 'unknown';
  } else if (device !== undefined && device > 0) {
    const ginKernel = e.tool === 'rccl-tests' && e.op === 'alltoall' && (device === 3 || device === 4);
    if (!ginKernel) {
      basis.push(
        e.tool === 'rccl-tests' && e.op === 'alltoall' && (device === 1 || device === 2)
          ? `-D ${device} runs an LSA (load/store) device kernel of alltoall_perf, none of the variants imports name`
          : `-D ${device} runs a device-API kernel of the test, none of the variants imports name`,
      );
      variant = 'unknown';
    } else {
      basis.push(`-D ${device} runs rccl-tests' ${device === 3 ? 'GIN' : 'LSA+GIN'} device kernel of alltoall_perf`);
      if (ginType) basis.push(`${fact('NCCL_GIN_TYPE')}${ginWords(ginReading)}`);
      if (!ginType) {
        unknowns.push(
          'NCCL_GIN_TYPE is not shown: the GIN backend the communicator took (Anvil SDMA or another) is not in the file',
        );
        variant = 'gin-sdma-dev';
      } else if (ginReading?.kind === 'sdma') variant = 'gin-sdma-dev';
      else variant = 'unknown';
      if (!symmetric) basis.push('-R 2 is not shown, which -D above 0 requires');
    }
  } else {
    const cta = shown.get('NCCL_CTA_POLICY');
    // An environment NCCL_CTA_POLICY overrides the communicator's CTAPolicy (-x).
    const ctaReading = cta
      ? readKnob('NCCL_CTA_POLICY', cta.value, version, cta.where)
      : ctaText !== undefined
        ? readKnob('NCCL_CTA_POLICY', ctaText, version)
        : undefined;
    const ctaFact = cta ? fact('NCCL_CTA_POLICY') : ctaText !== undefined ? `-x ${shownValue(ctaText)}` : '';
    const ce = ctaReading?.kind === 'sdma';
    if (ctaReading) {
      basis.push(
        `${ctaFact}${ctaReading.kind === 'sdma' ? `: ZERO, copy-engine collectives, for ${versionWords}` : ctaReading.kind === 'ambiguous' ? `: ZERO or not, by ${versionWords}` : `: not ZERO for ${versionWords}`}`,
      );
      if (cta && ctaText !== undefined) basis.push('the environment overrides -x (the communicator config)');
    }
    const ginEnabled = shown.get('NCCL_GIN_ENABLE');
    const a2aEnabled = shown.get('NCCL_GIN_A2A_ENABLE');
    const off = (s: Shown | undefined) => s !== undefined && cInteger(s.value) === 0;
    const ginLib = e.tool === 'rccl-tests' && ginReading?.kind === 'sdma' && !off(ginEnabled) && !off(a2aEnabled);
    if (ginType) basis.push(`${fact('NCCL_GIN_TYPE')}${ginWords(ginReading)}`);
    if (ginEnabled) basis.push(fact('NCCL_GIN_ENABLE'));
    if (a2aEnabled) basis.push(fact('NCCL_GIN_A2A_ENABLE'));
    // librccl picks the GIN backend itself when NCCL_GIN_TYPE is unset or -1 (not verified to be Anvil SDMA).
    const autoGin =
      e.tool === 'rccl-tests' &&
      e.op === 'alltoall' &&
      (ginType === undefined || cInteger(ginType.value) === -1) &&
      !off(ginEnabled) &&
      !off(a2aEnabled);
    const unsure = (r: Reading | undefined) => r?.kind === 'ambiguous' || r?.kind === 'unreadable';
    if (unsure(ctaReading) || unsure(ginReading)) variant = 'unknown';
    else if (ce && ginLib) {
      basis.push('both the copy-engine policy and the GIN-SDMA backend are set');
      variant = 'unknown';
    } else if (ce) variant = 'ce';
    else if (ginLib) {
      if (e.op !== 'alltoall') {
        basis.push(`librccl's GIN-SDMA path is AlltoAll's only; this test runs ${e.op ?? 'an unnamed collective'}`);
        variant = 'unknown';
      } else {
        variant = 'gin-sdma-lib';
        if (args && !symmetric)
          unknowns.push(
            "-R 2 is not on the command line: librccl's AlltoAll GIN path needs symmetric windows, so calls may have taken the normal path",
          );
        if (!args) unknowns.push("whether -R 2 registered the symmetric windows librccl's AlltoAll GIN path needs");
      }
    } else if (autoGin && (symmetric || !args)) {
      if (ginType || e.env || e.info.lines > 0)
        unknowns.push(
          `NCCL_GIN_TYPE is ${ginType ? '-1' : 'not set'}: librccl chooses the GIN backend itself, and whether that is Anvil SDMA (and so AlltoAll's GIN-SDMA path) is not in the file`,
        );
      variant = 'unknown';
    } else if (args && e.env && (ginType === undefined || ginReading?.kind === 'other')) {
      if (autoGin) basis.push("no -R 2: librccl's AlltoAll GIN path, which needs symmetric windows, was not eligible");
      variant = 'default';
    } else variant = 'unknown';
    if (variant === 'default' && basis.length === 0)
      basis.push('the command line has no -D, -x; the JSON env sets no NCCL_CTA_POLICY or NCCL_GIN_TYPE');
  }
  if (variant === 'unknown' && basis.length === 0) basis.push('nothing in the file names a variant');

  const mode = modeOf(e);
  const note = `variant ${variant} (mode ${mode.mode}): ${basis.join('; ')}${mode.why ? `; ${mode.why}` : ''}${unknowns.length > 0 ? `; not in the file: ${unknowns.join('; ')}` : ''}`;
  return { variant, mode: mode.mode, basis, unknowns, env, symmetric, note };
}

/**
 * One process per rank, or one process driving several GPUs. Text: the Rank lines' pids,
 * checked against nThread x nGpus of the header. JSON: `config.devices` holds one entry per
 * process (parseRankInfo reads the first Rank line of each), so several entries mean several
 * processes, and nthreads x ngpus the GPUs of each.
 */
export function modeOf(e: Pick<VariantEvidence, 'pids' | 'gpusPerProcess' | 'format'>): {
  mode: CollectiveMode;
  why: string;
} {
  const perProcess = e.gpusPerProcess;
  const known = e.pids.filter((p): p is number => p !== undefined);
  const distinct = new Set(known);
  const all = known.length === e.pids.length && known.length > 0;
  const entries = e.format === 'json' ? 'devices' : 'Rank lines';
  if (e.pids.length === 0) return { mode: 'unknown', why: `the file lists no ${entries}` };
  if (all && distinct.size >= 2 && distinct.size === e.pids.length && (perProcess === undefined || perProcess === 1))
    return { mode: 'rank-per-process', why: `${distinct.size} ${entries} with ${distinct.size} different pids` };
  if (perProcess === 1 && e.pids.length >= 2)
    return { mode: 'rank-per-process', why: `${e.pids.length} ${entries}, one GPU per process (nThread x nGpus = 1)` };
  if (perProcess !== undefined && perProcess >= 2 && (distinct.size <= 1 || e.pids.length === 1))
    return {
      mode: 'single-process',
      why: `one process drives ${perProcess} GPUs (nThread x nGpus = ${perProcess})${all ? `, pid ${known[0]}` : ''}`,
    };
  if (perProcess === undefined && all && distinct.size === 1 && e.pids.length >= 2)
    return { mode: 'single-process', why: `${e.pids.length} ${entries} with one pid` };
  if (e.pids.length === 1 && perProcess === 1)
    return { mode: 'unknown', why: 'one rank: no collective between processes or GPUs' };
  return {
    mode: 'unknown',
    why: !all
      ? `the ${entries} do not all show a pid`
      : `the ${entries} show ${distinct.size} pids for ${e.pids.length} entries${perProcess !== undefined ? ` and ${perProcess} GPUs per process` : ''}`,
  };
}

/** The `collective-variant` record of an imported run. */
export function variantRecord(d: VariantDecision, library: { name: string; version: string }): CollectiveVariant {
  return {
    type: 'collective-variant',
    variant: d.variant,
    supported: true,
    library: { name: library.name, version: library.version, path: '' },
    env: d.env,
    symmetric: d.symmetric,
    simulated: false,
    mode: d.mode,
    variantBasis: d.basis.slice(0, 32).map((b) => clipText(b)),
    variantUnknowns: d.unknowns.slice(0, 32).map((u) => clipText(u)),
  };
}

const clipText = (s: string) => (s.length > 4000 ? `${s.slice(0, 4000)}…` : s);
