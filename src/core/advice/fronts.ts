/**
 * The front that prints the advice, and what each front calls the user's options: the
 * extension names its settings (and the panel's controls), the CLI its flags. The advice itself
 * is front-neutral: where it tells the user to give an option it names both
 * (`bothFronts`: "sdma-lens advise --rccl-version X, or the sdmaLens.advice.rcclVersion
 * setting") or the setting alone, and each front's text layer rewords it for itself
 * (`forFront`; `adviceFor` for a whole advice), so the CLI never prints a setting name and the
 * panel never a flag.
 */
import type { Advice } from './advice';

export type Front = 'extension' | 'cli';

/** Each option the advice may tell the user to give: its setting, and its flag with the command that takes it. */
export const FRONT_OPTIONS = {
  rcclVersion: { setting: 'sdmaLens.advice.rcclVersion', flag: 'sdma-lens advise --rccl-version' },
  rocshmemVersion: { setting: 'sdmaLens.advice.rocshmemVersion', flag: 'sdma-lens advise --rocshmem-version' },
  loadStoreCus: { setting: 'sdmaLens.advice.loadStoreCus', flag: 'sdma-lens advise --cus' },
  waves: { setting: 'sdmaLens.advice.wavesPerCu', flag: 'sdma-lens advise --waves-per-cu' },
  messageSizes: { setting: 'sdmaLens.advice.messageSizes', flag: 'sdma-lens advise --sizes' },
  pair: { setting: "the panel's pair switcher", flag: 'sdma-lens advise --pair' },
  iterations: { setting: 'sdmaLens.sweep.iterations', flag: 'sdma-lens sweep --iters' },
} as const;

export type FrontOption = keyof typeof FRONT_OPTIONS;

const isSetting = (name: string) => name.startsWith('sdmaLens.');

/** "the sdmaLens.advice.rcclVersion setting", "the panel's pair switcher": how the extension names an option. */
function settingWords(option: FrontOption): string {
  const { setting } = FRONT_OPTIONS[option];
  return isSetting(setting) ? `the ${setting} setting` : setting;
}

/** "sdma-lens advise --rccl-version X": how the CLI names an option (with its value's placeholder). */
function flagWords(option: FrontOption, arg?: string): string {
  return `${FRONT_OPTIONS[option].flag}${arg ? ` ${arg}` : ''}`;
}

/**
 * An option in front-neutral text: its flag and its setting, in the one form `forFront`
 * resolves ("sdma-lens advise --rccl-version X, or the sdmaLens.advice.rcclVersion setting").
 */
export function bothFronts(option: FrontOption, arg?: string): string {
  return `${flagWords(option, arg)}, or ${settingWords(option)}`;
}

/** An option as one front names it. */
export function optionName(option: FrontOption, front: Front, arg?: string): string {
  return front === 'cli' ? flagWords(option, arg) : settingWords(option);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const OPTIONS = Object.keys(FRONT_OPTIONS) as FrontOption[];
/** `bothFronts` text of any option, with the value placeholder it was given. */
const BOTH = new RegExp(
  `(${OPTIONS.map((o) => escape(FRONT_OPTIONS[o].flag)).join('|')})((?: [A-Za-z0-9][\\w:.]*)?), or (${OPTIONS.map((o) => escape(settingWords(o))).join('|')})`,
  'g',
);
/** A setting named on its own, with or without "the ... setting" around it. */
const SETTING = new RegExp(
  `(?:the )?(${OPTIONS.filter((o) => isSetting(FRONT_OPTIONS[o].setting))
    .map((o) => escape(FRONT_OPTIONS[o].setting))
    .join('|')})(?: setting)?(?!\\w|\\.\\w)`,
  'g',
);
/** A flag named on its own, with its command and the value it was given (a number) or its placeholder (capitals). */
const FLAG = new RegExp(
  `(${OPTIONS.map((o) => escape(FRONT_OPTIONS[o].flag)).join('|')})(?![\\w-])(?: ([A-Z][A-Z0-9_:]*|\\d+)(?![\\w:]))?`,
  'g',
);

const byFlag = new Map(OPTIONS.map((o) => [FRONT_OPTIONS[o].flag as string, o]));
const bySetting = new Map(OPTIONS.map((o) => [FRONT_OPTIONS[o].setting as string, o]));

/** Text of the advice as `front` prints it: each option named both ways becomes that front's name, and an option named the other front's way too. */
export function forFront(text: string, front: Front): string {
  const both = text.replace(BOTH, (_all, flag: string, arg: string, setting: string) =>
    front === 'cli' ? `${flag}${arg}` : setting,
  );
  return front === 'cli'
    ? both.replace(SETTING, (_all, setting: string) => flagWords(bySetting.get(setting)!))
    : both.replace(
        FLAG,
        (_all, flag: string, arg: string | undefined) =>
          `${settingWords(byFlag.get(flag)!)}${arg !== undefined && /^\d+$/.test(arg) ? ` at ${arg}` : ''}`,
      );
}

/** The advice with every sentence in it as `front` prints it (the settings' values and the numbers untouched). */
export function adviceFor(advice: Advice, front: Front): Advice {
  const say = (text: string) => forFront(text, front);
  const crossover = (c: Advice['crossovers'][number]) => ({
    ...c,
    explanation: say(c.explanation),
    uncertainty: c.uncertainty.map(say),
    ...(c.measureNext !== undefined ? { measureNext: say(c.measureNext) } : {}),
  });
  return {
    ...advice,
    focus: advice.focus.map(crossover),
    crossovers: advice.crossovers.map(crossover),
    recommendations: advice.recommendations.map((r) => ({ ...r, evidence: say(r.evidence) })),
    ...(advice.cuBudget ? { cuBudget: { ...advice.cuBudget, text: say(advice.cuBudget.text) } } : {}),
    notes: advice.notes.map(say),
  };
}
