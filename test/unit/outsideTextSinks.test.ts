/**
 * Text from outside is data at every sink (src/core/text.ts). Every string field of every
 * record of a run that its schema lets hold free text (found by walking the records of the
 * fixtures and keeping the fields whose record still validates with a payload appended) is fed
 * payloads with line breaks, terminal escapes, bidi controls, NUL and shell syntax, and the
 * outputs of `sdma-lens advise`, `runs`, `compare`, `import` (a rocprofv3 profile read by a
 * stand-in helper), `fleet show`, the collective and overlap tables and Suggest Settings' writers are checked:
 * - no raw control, bidi or line-separator character in any line;
 * - as many lines as the same input gives with each such character replaced by '_';
 * - `advise`'s whole output (and a shell file the writers made), sourced by /bin/sh in a
 *   temporary folder whose PATH holds only recording stubs (touch, rm, curl, sh, ...): no stub
 *   runs, the shell says nothing, and the only variables that change are catalog knobs set to
 *   values of their catalog type.
 * The CLI runs in-process (test/support/cli.ts). Seeded: fast-check's seed is fixed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseTree } from 'jsonc-parser';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import { applyTextEdits, setJsonEnv, setLineVariables } from '../../src/core/advice/envFiles';
import { allKnobs, knob } from '../../src/core/advice/knobs';
import { setLaunchEnv } from '../../src/core/advice/launchEnv';
import { collectiveTable } from '../../src/core/collective/collectiveTable';
import { FleetIndexSchema } from '../../src/core/fleet/fleetIndex';
import type { FleetIndex } from '../../src/core/fleet/fleetIndex';
import { FleetStore } from '../../src/core/fleetRun/fleetStore';
import { validateRecord } from '../../src/core/protocol';
import { HostProblemSchema, RUN_FILE_NAME, RunEndSchema, RunHeaderSchema } from '../../src/core/run';
import * as text from '../../src/core/text';
import { benchRunText, runFromText } from '../support/benchRuns';
import { overlapRunText } from '../support/overlapRecords';
import { runCli } from '../support/cli';

const PAYLOADS = [
  '\n',
  '\r',
  '\u001b]0;title\u0007',
  '\u001b[2J',
  '\u202e',
  '\u2066',
  '\u0000',
  '\u2028',
  '$(touch X)',
  '`touch X`',
  '; touch X',
];
/** What no line of output may hold raw: C0, DEL, C1, the bidi controls, the line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
/** The clean counterpart of a payload: each character a sink must escape replaced by '_'. */
const cleaned = (s: string) => s.replace(UNSAFE_ALL, '_');
const SEED = 20261130;

type Path = (string | number)[];
type Json = Record<string, unknown>;
interface Field {
  line: number;
  path: Path;
}
type Edit = { field: number; payload: string };

let root: string;
let stubs: string;
let counter = 0;
const fresh = (tag: string) => {
  const dir = join(root, `${tag}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** Programs a sourced line might start; each records its name and arguments in the log, nothing else. */
const STUB_NAMES = [
  'touch',
  'rm',
  'curl',
  'wget',
  'sh',
  'bash',
  'dash',
  'cat',
  'nc',
  'python3',
  'perl',
  'ls',
  'id',
  'chmod',
  'mkdir',
  'env',
  'X',
  'title',
];
const stubLog = () => join(stubs, 'ran.log');

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sdma-outside-text-'));
  stubs = join(root, 'stubs');
  mkdirSync(stubs);
  for (const name of STUB_NAMES) {
    const file = join(stubs, name);
    writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "${name} $*" >> '${stubLog()}'\n`);
    chmodSync(file, 0o755);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// Records, their free-text fields, and payloads put into them

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function stringPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return path.length === 1 && path[0] === 'type' ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((x, i) => stringPaths(x, [...path, i]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, x]) => stringPaths(x, [...path, k]));
  return [];
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)[k], value);
}

function put(value: unknown, path: Path, x: unknown): void {
  const parent = at(value, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path.at(-1)!] = x;
}

/** Whether a line of a run file is still what its schema accepts. */
function lineValid(value: Json): boolean {
  if (value.type === 'run') return v.safeParse(RunHeaderSchema, value).success;
  if (value.type === 'run-end') return v.safeParse(RunEndSchema, value).success;
  if (value.type === 'host-problem') return v.safeParse(HostProblemSchema, value).success;
  return validateRecord(value).kind === 'record';
}

const PROBE = `\n\u202e\u001b[2J$(touch X)`;

/** The string fields of the lines that stay valid with a payload appended: the run's free text. Identical records are walked once. */
function freeTextFields(lines: Json[], valid: (value: Json) => boolean = lineValid): Field[] {
  const seen = new Set<string>();
  const fields: Field[] = [];
  lines.forEach((line, i) => {
    const shape = JSON.stringify(line, (k, x: unknown) => (typeof x === 'number' ? 0 : x));
    if (seen.has(shape)) return;
    seen.add(shape);
    for (const path of stringPaths(line)) {
      const probe = clone(line);
      put(probe, path, `${String(at(line, path))}${PROBE}`);
      if (valid(probe)) fields.push({ line: i, path });
    }
  });
  return fields;
}

/** The lines with each edit's payload appended to its field (`clean`: the payload's unsafe characters replaced). */
function applyEdits(lines: Json[], fields: Field[], edits: Edit[], clean: boolean): Json[] {
  const out = clone(lines);
  for (const e of edits) {
    const f = fields[e.field]!;
    put(out[f.line], f.path, `${String(at(out[f.line], f.path))}${clean ? cleaned(e.payload) : e.payload}`);
  }
  return out;
}

/** Every field with the same payload. */
const everyField = (fields: Field[], payload: string): Edit[] => fields.map((_, field) => ({ field, payload }));

/** Payloads as a generator makes them: one to four pieces, payloads and plain words, in any order. */
const payloadArb = fc
  .array(fc.constantFrom(...PAYLOADS, 'touch X', 'x', ' ', '2.28'), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));
const editsArb = (fields: Field[]) =>
  fc.array(fc.record({ field: fc.nat(fields.length - 1), payload: payloadArb }), { minLength: 1, maxLength: 12 });

const parseLines = (t: string): Json[] =>
  t
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
const ndjson = (lines: Json[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

function saveRunLines(runsDir: string, id: string, lines: Json[]): void {
  const withId = clone(lines);
  withId[0]!.id = id;
  mkdirSync(join(runsDir, id), { recursive: true });
  writeFileSync(join(runsDir, id, RUN_FILE_NAME), ndjson(withId));
}

// ---------------------------------------------------------------------------------------------
// What every output must satisfy

/** No raw control, bidi or separator character in any line of `out`. */
function expectNoRawControls(out: string, what: string): void {
  const bad = out.split('\n').findIndex((l) => UNSAFE.test(l));
  expect(
    bad,
    `${what}: line ${bad + 1} carries a raw control, bidi or separator character: ${JSON.stringify(out.split('\n')[bad])}`,
  ).toBe(-1);
}

const lineCount = (out: string) => out.split('\n').length;

/** The value a knob's catalog type allows, checked here against the catalog itself (not through the code under test). */
function catalogValueOk(name: string, value: string): boolean {
  const k = knob(name);
  if (!k) return false;
  if (k.kind === 'bool') return value === '0' || value === '1';
  if (k.kind === 'enum') return (k.values ?? []).some((x) => x.value === value);
  return /^(0|[1-9][0-9]*)$/.test(value);
}

/** `set` output of dash: NAME='value' entries, values single-quoted with '\'' for a quote (and line breaks inside). */
function shellVariables(setOutput: string): Map<string, string> {
  const vars = new Map<string, string>();
  const entry = /([A-Za-z_][A-Za-z0-9_]*)=((?:'[^']*'|\\')*)\n/y;
  let m: RegExpExecArray | null;
  let read = 0;
  while ((m = entry.exec(setOutput)) !== null) {
    vars.set(
      m[1]!,
      m[2]!.replace(/'([^']*)'|\\'/g, (_, inner: string | undefined) => inner ?? "'"),
    );
    read = entry.lastIndex;
  }
  expect(read, 'the set output is read to its end').toBe(setOutput.length);
  return vars;
}

/**
 * Sources `script` with /bin/sh in a fresh folder whose PATH is the stubs folder: `set` before
 * and after. The shell must say nothing and end 0, no stub may run, nothing may be created,
 * and only catalog knobs may change, each to a value of its catalog type (or a variable of the
 * user's own file, `own`, to its value there).
 */
function expectSafeToSource(script: string, what: string, own: Record<string, string> = {}): Map<string, string> {
  const dir = fresh('source');
  writeFileSync(join(dir, 'knobs.sh'), script);
  rmSync(stubLog(), { force: true });
  const r = spawnSync('/bin/sh', ['-c', 'set > before.txt; . ./knobs.sh; set > after.txt'], {
    cwd: dir,
    env: { PATH: stubs, HOME: dir },
    encoding: 'utf8',
    timeout: 10_000,
  });
  const ran = existsSync(stubLog()) ? readFileSync(stubLog(), 'utf8') : '';
  expect(ran, `${what}: sourcing ran programs`).toBe('');
  expect(r.stderr, `${what}: the shell complained`).toBe('');
  expect(r.status, `${what}: sourcing failed`).toBe(0);
  expect(existsSync(join(dir, 'X')), `${what}: a file X was created`).toBe(false);
  const before = shellVariables(readFileSync(join(dir, 'before.txt'), 'utf8'));
  const after = shellVariables(readFileSync(join(dir, 'after.txt'), 'utf8'));
  const changed = new Map([...after].filter(([name, value]) => before.get(name) !== value));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  expect(removed, `${what}: variables unset`).toEqual([]);
  for (const [name, value] of changed)
    expect(
      own[name] === value || catalogValueOk(name, value),
      `${what}: ${name}='${value}' changed, not a catalog knob with a value of its type`,
    ).toBe(true);
  return changed;
}

// ---------------------------------------------------------------------------------------------
// The runs fed in

/** The simulated MI350X sweep, with the libraries a ROCm node reports, a helper warning and a damaged line said. */
function simSweepLines(): Json[] {
  const lines = parseLines(readFileSync(join(__dirname, '..', 'fixtures', 'runs', 'sim-sweep-seed1.ndjson'), 'utf8'));
  const topology = lines.find((l) => l.type === 'topology')!;
  topology.libraries = [
    { name: 'rccl', version: '2.27.7' },
    { name: 'rocshmem', version: '3.1.0' },
    { name: 'hsa-runtime', version: '1.15' },
  ];
  (topology.node as Json).hostname = 'node-a';
  const done = lines.findIndex((l) => l.type === 'done');
  lines.splice(
    done,
    0,
    { type: 'warning', code: 'sim-note', message: 'the simulated node has no real engines' },
    { type: 'host-problem', message: 'skipped a malformed record: line 9' },
  );
  const end = lines.at(-1)!;
  end.problems = 1;
  end.firstProblem = 'skipped a malformed record: line 9';
  return lines;
}

/** The 2x H200 sweep of bench/results (NVIDIA: NCCL's knobs, sm_90). */
const h200SweepLines = (): Json[] => parseLines(benchRunText('sweep', 'h200'));

// ---------------------------------------------------------------------------------------------

describe('the sink functions', () => {
  it('escape controls, bidi controls and line breaks visibly, on one line, and keep clean text as it is', () => {
    for (const p of PAYLOADS) {
      const line = text.terminalLine(`node${p}name`);
      expect(line).not.toMatch(UNSAFE);
      expect(text.shellComment(`note: ${p}`)).toMatch(/^# note: [^\n]*$/);
    }
    expect(text.terminalLine('a\u001b[2J\u202e\u2066b\n\r\u2028\u0085\u061c\u200f')).toBe(
      'a\\x1b[2J\\u202e\\u2066b\\x0a\\x0d\\u2028\\x85\\u061c\\u200f',
    );
    expect(text.terminalLine('µs → GB/s, plain text · GPU 0 → GPU 1')).toBe('µs → GB/s, plain text · GPU 0 → GPU 1');
    expect(text.shellComment('')).toBe('#');
    expect(JSON.parse(text.jsonText({ s: 'a\u202e\u2028\u009b\u007fb' }))).toEqual({ s: 'a\u202e\u2028\u009b\u007fb' });
    expect(text.jsonText({ s: 'a\u202e\u2028b' })).toBe('{"s":"a\\u202e\\u2028b"}');
  });

  it('write a knob assignment only for a catalog knob and a value of its type, from the typed value', () => {
    expect(text.knobAssignment('NCCL_GIN_TYPE', '7', knob)).toEqual({ ok: true, name: 'NCCL_GIN_TYPE', value: '7' });
    expect(text.knobAssignment('NCCL_CTA_POLICY', 'ZERO', knob)).toEqual({
      ok: true,
      name: 'NCCL_CTA_POLICY',
      value: 'ZERO',
    });
    expect(text.knobAssignment('HSA_FORCE_SDMA_SIZE', 4096, knob)).toEqual({
      ok: true,
      name: 'HSA_FORCE_SDMA_SIZE',
      value: '4096',
    });
    expect(text.knobAssignment('NCCL_GIN_ENABLE', true, knob)).toEqual({
      ok: true,
      name: 'NCCL_GIN_ENABLE',
      value: '1',
    });
    for (const [name, value] of [
      ['NCCL_GIN_TYPE', '9'],
      ['NCCL_GIN_TYPE', '7\ntouch X'],
      ['NCCL_GIN_ENABLE', '2'],
      ['NCCL_GIN_ENABLE', '1; touch X'],
      ['HSA_FORCE_SDMA_SIZE', '0x1000'],
      ['HSA_FORCE_SDMA_SIZE', ' 4096'],
      ['HSA_FORCE_SDMA_SIZE', '1e3'],
      ['HSA_FORCE_SDMA_SIZE', '99999999999999999999'],
      ['NOT_A_KNOB', '1'],
      ['nccl_gin_enable', '1'],
      ['NCCL_GIN_ENABLE$(touch X)', '1'],
    ] as const) {
      expect(text.knobAssignment(name, value, knob).ok, `${name}=${JSON.stringify(value)}`).toBe(false);
      const line = text.shellExport(name, value, knob);
      expect(line).toMatch(/^# note: [^\n]* skipped: /);
      expect(line).not.toMatch(UNSAFE);
    }
    // Every catalog knob's own default and recommended values pass, as they are.
    for (const k of allKnobs())
      for (const x of [k.default, k.recommended].filter((y): y is string => y !== null && y !== undefined))
        expect(text.shellExport(k.name, x, knob)).toBe(`export ${k.name}=${x}`);
  });
});

describe('sdma-lens advise: a run of outside text stays data', () => {
  const fixtures = [
    ['the simulated MI350X sweep', simSweepLines],
    ['the 2x H200 sweep', h200SweepLines],
  ] as const;

  async function advise(lines: Json[], extra: string[] = []): Promise<{ out: string; err: string }> {
    const runs = join(fresh('advise'), 'runs');
    saveRunLines(runs, 'sweep-1', lines);
    const r = await runCli(['advise', 'sweep-1', '--runs-dir', runs, ...extra]);
    expect(r.code, r.err).toBe(0);
    return r;
  }

  /** One input against its clean counterpart: no raw characters, as many lines, safe to source, the same settings. */
  async function check(
    lines: Json[],
    fields: Field[],
    edits: Edit[],
    what: string,
    extra: (clean: boolean) => string[] = () => [],
  ): Promise<void> {
    const dirty = await advise(applyEdits(lines, fields, edits, false), extra(false));
    const clean = await advise(applyEdits(lines, fields, edits, true), extra(true));
    expectNoRawControls(dirty.out, what);
    expectNoRawControls(dirty.err, `${what} (stderr)`);
    expect(lineCount(dirty.out), `${what}: lines against the clean input`).toBe(lineCount(clean.out));
    const set = expectSafeToSource(dirty.out, what);
    expect([...set.keys()].sort(), `${what}: the same knobs as the clean input sets`).toEqual(
      [...expectSafeToSource(clean.out, `${what} (clean)`).keys()].sort(),
    );
  }

  for (const [name, make] of fixtures) {
    it(`${name}: each payload in every free-text field at once`, async () => {
      const lines = make();
      const fields = freeTextFields(lines);
      // The fields that matter most are among them: a library version, the node's and the GPUs' names, a warning.
      const described = fields.map((f) => `${String(lines[f.line]!.type)}.${f.path.join('.')}`);
      expect(described).toEqual(
        expect.arrayContaining([
          'topology.libraries.0.version',
          'topology.node.name',
          'topology.gpus.0.name',
          'run.createdAt',
          'run-end.message',
        ]),
      );
      for (const payload of PAYLOADS)
        await check(lines, fields, everyField(fields, payload), `${name}, ${JSON.stringify(payload)} everywhere`);
    });

    it(`${name}: random payloads in random fields (property, seeded)`, async () => {
      const lines = make();
      const fields = freeTextFields(lines);
      await fc.assert(
        fc.asyncProperty(editsArb(fields), async (edits) => {
          await check(
            lines,
            fields,
            edits,
            `${name}, ${JSON.stringify(edits.map((e) => [fields[e.field]!.path.join('.'), e.payload]))}`,
          );
        }),
        { numRuns: name.includes('H200') ? 8 : 20, seed: SEED },
      );
    }, 120_000);
  }

  it('a library version that ends a line and runs a command (the reported case) is one comment line; --rccl-version too', async () => {
    const lines = simSweepLines();
    const fields = freeTextFields(lines);
    const version = fields.findIndex(
      (f) => lines[f.line]!.type === 'topology' && f.path.join('.') === 'libraries.0.version',
    );
    const edits = [{ field: version, payload: '\ntouch X' }];
    for (const payload of ['\ntouch X', '\ntouch X\n', '\n$(touch X)\n', '\u2028touch X\r'])
      await check(
        lines,
        fields,
        [{ field: version, payload }],
        `libraries[0].version = 2.27.7${JSON.stringify(payload)}`,
      );
    const { out } = await advise(applyEdits(lines, fields, edits, false));
    expect(out).toContain('RCCL 2.27.7\\x0atouch X');
    for (const payload of PAYLOADS)
      await check(simSweepLines(), fields, [], `--rccl-version 2.27.7${JSON.stringify(payload)}`, (clean) => [
        '--rccl-version',
        `2.27.7${clean ? cleaned(payload) : payload}`,
      ]);
  });
});

describe('sdma-lens runs and compare', () => {
  it('runs: one line per run, whatever its problems and end say (property, seeded)', async () => {
    const lines = simSweepLines();
    const fields = freeTextFields(lines);
    const list = async (edits: Edit[], clean: boolean) => {
      const runs = join(fresh('runs'), 'runs');
      saveRunLines(runs, 'sweep-1', applyEdits(lines, fields, edits, clean));
      saveRunLines(runs, 'sweep-2', applyEdits(lines, fields, edits, clean));
      const r = await runCli(['runs', '--runs-dir', runs]);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };
    const cases = [...PAYLOADS.map((p) => everyField(fields, p))];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const out = await list(edits, false);
        expectNoRawControls(out, 'runs');
        expect(lineCount(out)).toBe(lineCount(await list(edits, true)));
      }),
      { numRuns: 30, seed: SEED },
    );
  }, 120_000);

  it('compare: a node name, a run id or a note cannot forge report lines (property, seeded)', async () => {
    const lines = simSweepLines();
    const fields = freeTextFields(lines);
    const compare = async (edits: Edit[], clean: boolean, extra: string[]) => {
      const runs = join(fresh('compare'), 'runs');
      saveRunLines(runs, 'a', applyEdits(lines, fields, edits, clean));
      saveRunLines(runs, 'b', applyEdits(lines, fields, edits, clean));
      const r = await runCli(['compare', 'a', 'b', '--runs-dir', runs, ...extra]);
      expect(r.code, r.err).toBe(0);
      return r;
    };
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...cases), editsArb(fields)),
        fc.constantFrom<string[]>([], ['--fail-below', '0.5']),
        async (edits, extra) => {
          const dirty = await compare(edits, false, extra);
          expectNoRawControls(dirty.out, 'compare');
          expectNoRawControls(dirty.err, 'compare (stderr)');
          expect(lineCount(dirty.out)).toBe(lineCount((await compare(edits, true, extra)).out));
        },
      ),
      { numRuns: 30, seed: SEED },
    );
  }, 120_000);
});

describe('sdma-lens import of a rocprofv3 profile', () => {
  /** What the helper prints when it reads a profile: the 2x H200 program's records as an import, a warning, a library's logged calls. */
  function importLines(): Json[] {
    const lines = parseLines(
      readFileSync(join(__dirname, '..', 'fixtures', 'runmode', 'runmode-fused-a2a.ndjson'), 'utf8'),
    );
    lines.find((l) => l.type === 'hello')!.command = 'import';
    const done = lines.findIndex((l) => l.type === 'done');
    lines.splice(
      done,
      0,
      { type: 'warning', code: 'rocprofv3-unmapped', message: '3 rows of memory_copy_trace.csv name no agent' },
      {
        type: 'library-calls',
        library: 'rccl',
        op: 'AllToAll',
        transport: 'sdma',
        sizeKind: 'bytesPerPeer',
        minBytes: 1 << 20,
        maxBytes: 1 << 21,
        calls: 4,
        ranks: 2,
        evidence: 'AllToAll: opCount 3 sendbuff 0x7f count 262144 datatype 7',
      },
    );
    return lines;
  }

  /** `sdma-lens import FOLDER` with a stand-in helper that answers --version and prints `records`. */
  async function importWith(records: Json[]): Promise<{ out: string; err: string }> {
    const dir = fresh('import');
    writeFileSync(join(dir, 'records.ndjson'), ndjson(records));
    const helper = join(dir, 'sdma-probe');
    writeFileSync(
      helper,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo 'sdma-probe 0.1.0 (protocol 1; backends: sim, hip)'; exit 0; fi\nexec cat '${join(dir, 'records.ndjson')}'\n`,
    );
    chmodSync(helper, 0o755);
    const r = await runCli([
      'import',
      join(__dirname, '..', 'fixtures', 'rocprofv3'),
      '--helper',
      helper,
      '--runs-dir',
      join(dir, 'runs'),
    ]);
    expect(r.code, r.err).toBe(0);
    return r;
  }

  it('kernel names, copy labels, the program and the helper warnings stay one line each (property, seeded)', async () => {
    const lines = importLines();
    const fields = freeTextFields(lines);
    expect(fields.map((f) => `${String(lines[f.line]!.type)}.${f.path.join('.')}`)).toEqual(
      expect.arrayContaining(['dispatch.name', 'warning.message', 'library-calls.op']),
    );
    const clean = await importWith(lines);
    expect(clean.out).toMatch(/fusedComputeA2a/);
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const dirty = await importWith(applyEdits(lines, fields, edits, false));
        expectNoRawControls(dirty.out, 'import');
        expectNoRawControls(dirty.err, 'import (stderr)');
        expect(lineCount(dirty.out)).toBe(lineCount((await importWith(applyEdits(lines, fields, edits, true))).out));
      }),
      { numRuns: 24, seed: SEED },
    );
  }, 120_000);
});

describe('sdma-lens fleet show', () => {
  const NODES = ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-a05', 'gpu-a06'];

  /** The index of a fleet of six nodes (the last one's engines at half speed, so it is an outlier), with Slurm's words in it. */
  function fleetIndex(): FleetIndex {
    return {
      format: 'sdma-lens-fleet',
      version: 1,
      id: 'fleet-outside',
      createdAt: '2026-12-02T00:00:00Z',
      endedAt: '2026-12-02T00:10:00Z',
      via: { kind: 'ssh', host: 'login-1' },
      slurm: {
        job: '4711',
        ownAllocation: true,
        partition: 'mi350',
        nodelist: 'gpu-a[01-06]',
        released: { gone: false, state: 'COMPLETING', waitedMs: 30_000 },
      },
      helper: '/opt/sdma-lens/sdma-probe',
      commands: ['sweep'],
      args: { sweep: ['sweep', '--backend', 'sim'] },
      status: 'partial',
      message: 'one node ended early',
      nodes: NODES.map((node, i) => ({
        node,
        runs: [{ command: 'sweep', runId: `sweep-${i}`, status: 'ok' }],
        ...(i === 2 ? { error: 'srun: node gpu-a03 lost its step' } : {}),
      })),
    };
  }

  function nodeRunLines(base: Json[], node: string, i: number): Json[] {
    const lines = clone(base);
    lines[0]!.fleet = { id: 'fleet-outside', node, job: '4711' };
    if (i === NODES.length - 1) {
      for (const s of lines.filter((l) => l.type === 'sample' && l.mover === 'engine')) {
        s.gbps = (s.gbps as number) * 0.5;
        s.meanNs = (s.meanNs as number) / 0.5;
      }
    }
    return lines;
  }

  const notRunId = (fieldsOf: Field[], index: FleetIndex) =>
    fieldsOf.filter(
      (f) => !['runId', 'id', 'command'].includes(String(f.path.at(-1))) && String(at(index, f.path)) !== '',
    );

  it("node names, Slurm's and the runs' words stay one line each (property, seeded)", async () => {
    const runLines = simSweepLines();
    const runFields = freeTextFields(runLines);
    const index = fleetIndex();
    const indexFields = notRunId(
      freeTextFields([index as unknown as Json], (x) => v.safeParse(FleetIndexSchema, x).success),
      index,
    );
    expect(indexFields.map((f) => f.path.join('.'))).toEqual(
      expect.arrayContaining(['nodes.0.node', 'nodes.2.error', 'message', 'slurm.job']),
    );
    const show = async (indexEdits: Edit[], runEdits: Edit[], clean: boolean) => {
      const dir = fresh('fleet');
      const runs = join(dir, 'runs');
      const edited = applyEdits([index as unknown as Json], indexFields, indexEdits, clean)[0] as unknown as FleetIndex;
      const base = applyEdits(runLines, runFields, runEdits, clean);
      edited.nodes.forEach((n, i) => saveRunLines(runs, `sweep-${i}`, nodeRunLines(base, n.node, i)));
      new FleetStore(runs).write(edited);
      const r = await runCli(['fleet', 'show', '--runs-dir', runs]);
      expect([0, 1], r.err).toContain(r.code);
      return r;
    };
    const clean = await show([], [], false);
    expect(clean.out).toMatch(/gpu-a06/);
    const cases = PAYLOADS.map((p) => [everyField(indexFields, p), everyField(runFields, p)] as const);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...cases), fc.tuple(editsArb(indexFields), editsArb(runFields))),
        async ([indexEdits, runEdits]) => {
          // Distinct node names stay distinct: a payload is appended to each.
          const dirty = await show(indexEdits, runEdits, false);
          expectNoRawControls(dirty.out, 'fleet show');
          expectNoRawControls(dirty.err, 'fleet show (stderr)');
          expect(lineCount(dirty.out)).toBe(lineCount((await show(indexEdits, runEdits, true)).out));
        },
      ),
      { numRuns: 16, seed: SEED },
    );
  }, 120_000);
});

describe('the collective table and its export lines', () => {
  it("a collective run's node, warnings and library versions stay one line each; the exports are checked (property, seeded)", async () => {
    // The 2x H200 run timed each point once; a collective verdict needs repeats, so each point gets
    // five around its time (+-0.5%) and the advice has exports to check.
    const lines = parseLines(benchRunText('collective', 'coll')).map((l) =>
      l.type === 'collective' && typeof l.timeUs === 'number'
        ? { ...l, repeats: 5, samplesUs: [0.995, 0.9975, 1, 1.0025, 1.005].map((f) => (l.timeUs as number) * f) }
        : l,
    );
    lines.splice(lines.length - 1, 0, {
      type: 'warning',
      code: 'rccl-log',
      message: 'RCCL_ENABLE_INTRANET is not set',
    });
    const fields = freeTextFields(lines);
    const table = (edits: Edit[], clean: boolean) =>
      collectiveTable(runFromText(ndjson(applyEdits(lines, fields, edits, clean))));
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    expect(table([], true).split('\n')).toContain('# shell:');
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const out = table(edits, false);
        expectNoRawControls(out, 'collective table');
        expect(lineCount(out)).toBe(lineCount(table(edits, true)));
        const all = out.split('\n');
        // A payload in a point's transport takes that point off its path, and with it the verdict
        // and the exports; where exports are written, each is checked.
        if (!all.includes('# shell:')) return;
        const exports = all.slice(all.indexOf('# shell:') + 1);
        for (const l of exports) expect(l).toMatch(/^export [A-Z_][A-Z0-9_]*=[A-Za-z0-9_.-]+$|^# note: /);
        const sourced = expectSafeToSource(exports.join('\n'), 'collective exports');
        expect(sourced.size).toBe(exports.filter((l) => l.startsWith('export ')).length);
      }),
      { numRuns: 16, seed: SEED },
    );
  }, 120_000);
});

describe('the overlap table', () => {
  it("an overlap run's mechanism, compute labels, node and throttle reasons stay one line each (property, seeded)", async () => {
    const lines = parseLines(overlapRunText());
    const fields = freeTextFields(lines);
    expect(fields.some((f) => f.path[0] === 'mechanism')).toBe(true);
    const table = (edits: Edit[], clean: boolean) =>
      collectiveTable(runFromText(ndjson(applyEdits(lines, fields, edits, clean))));
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const out = table(edits, false);
        expectNoRawControls(out, 'overlap table');
        expect(lineCount(out)).toBe(lineCount(table(edits, true)));
        expect(out.split('\n').filter((l) => l.startsWith('# claim: ')).length).toBe(7);
      }),
      { numRuns: 16, seed: SEED },
    );
  }, 120_000);
});

describe('sdma-lens advise on a collective run', () => {
  it('the node, warnings, variant reasons and library versions stay inside comment lines; the block is safe to source (property, seeded)', async () => {
    const lines = parseLines(benchRunText('collective', 'coll'));
    lines.splice(lines.length - 1, 0, {
      type: 'warning',
      code: 'rccl-log',
      message: 'RCCL_ENABLE_INTRANET is not set',
    });
    const fields = freeTextFields(lines);
    const advise = async (edits: Edit[], clean: boolean) => {
      const runs = join(fresh('advise-collective'), 'runs');
      saveRunLines(runs, 'coll', applyEdits(lines, fields, edits, clean));
      const r = await runCli(['advise', 'coll', '--runs-dir', runs]);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const out = await advise(edits, false);
        expectNoRawControls(out, 'collective advise');
        const clean = await advise(edits, true);
        expect(lineCount(out)).toBe(lineCount(clean));
        expect([...expectSafeToSource(out, 'collective advise').keys()].sort()).toEqual(
          [...expectSafeToSource(clean, 'collective advise (clean)').keys()].sort(),
        );
      }),
      { numRuns: 12, seed: SEED },
    );
  }, 120_000);
});

describe("Suggest Settings' writers", () => {
  const LAUNCH =
    '{\n  "version": "0.2.0",\n  "configurations": [\n    { "name": "train", "type": "cppdbg", "environment": [ { "name": "OMP_NUM_THREADS", "value": "8" } ] },\n    { "name": "plot", "type": "debugpy", "env": { "MPLBACKEND": "Agg" } }\n  ]\n}\n';
  const TASKS =
    '{\n  "version": "2.0.0",\n  "tasks": [ { "label": "bench", "type": "shell", "command": "make" } ]\n}\n';
  const DOTENV = '# knobs\nOMP_NUM_THREADS=8\n';

  /** Everything the writers make of `vars`: the .env and shell files, the launch configurations and the task. */
  function written(vars: Record<string, string>, entry = 'train'): Record<string, string> {
    return {
      dotenv: applyTextEdits(DOTENV, setLineVariables(DOTENV, vars, 'dotenv')),
      shell: applyTextEdits(DOTENV, setLineVariables(DOTENV, vars, 'shell')),
      launchList: setLaunchEnv(LAUNCH, entry, vars).text,
      launchObject: setLaunchEnv(LAUNCH, 'plot', vars).text,
      launchNew: setLaunchEnv(LAUNCH, `SDMA Lens ${entry}`, vars).text,
      tasks: applyTextEdits(TASKS, setJsonEnv(TASKS, 'tasks', 'bench', vars)),
    };
  }

  function expectSound(files: Record<string, string>, what: string): void {
    for (const [kind, out] of Object.entries(files)) {
      expectNoRawControls(out, `${what}: ${kind}`);
      if (kind.startsWith('launch') || kind === 'tasks')
        expect(parseTree(out), `${what}: ${kind} is JSON`).toBeDefined();
    }
    expectSafeToSource(files.shell!, `${what}: shell file`, { OMP_NUM_THREADS: '8' });
  }

  it('the settings of advice on a run of outside text are written as for the clean run (property, seeded)', async () => {
    const lines = simSweepLines();
    const fields = freeTextFields(lines);
    const vars = (edits: Edit[], clean: boolean) => {
      const run = runFromText(ndjson(applyEdits(lines, fields, edits, clean)));
      return Object.fromEntries(
        adviseFromRun(run)
          .recommendations.filter((r) => r.value !== undefined)
          .map((r) => [r.knob, r.value!]),
      );
    };
    expect(Object.keys(vars([], false)).length).toBeGreaterThan(3);
    const cases = PAYLOADS.map((p) => everyField(fields, p));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...cases), editsArb(fields)), async (edits) => {
        const dirty = written(vars(edits, false));
        expectSound(dirty, 'advice vars');
        const clean = written(vars(edits, true));
        for (const kind of Object.keys(dirty)) expect(lineCount(dirty[kind]!), kind).toBe(lineCount(clean[kind]!));
      }),
      { numRuns: 12, seed: SEED },
    );
  }, 120_000);

  it('a value or a name that is not of its knob is not written at all; a configuration named by outside text is JSON data', () => {
    const none = written({});
    for (const p of PAYLOADS) {
      const bad = {
        NCCL_GIN_TYPE: `7${p}`,
        NCCL_GIN_ENABLE: `1${p}`,
        HSA_FORCE_SDMA_SIZE: `4096${p}`,
        OMP_NUM_THREADS: `16${p}`,
        [`NCCL_X${p}`]: '1',
      };
      const files = written(bad);
      expectSound(files, JSON.stringify(p));
      expect(files.dotenv).toBe(DOTENV);
      expect(files.shell).toBe(DOTENV);
      expect(files.tasks).toBe(TASKS);
      expect(files.launchList).toBe(LAUNCH);
      expect(files).toEqual(none);
      // The configuration's name comes from the user's file (or a script): it is written as JSON data and said on one line.
      const named = setLaunchEnv(LAUNCH, `train${p}`, { NCCL_GIN_ENABLE: '1' });
      expectNoRawControls(named.text, `launch configuration named ${JSON.stringify(p)}`);
      expect(named.description).not.toMatch(UNSAFE);
      const root = parseTree(named.text)!;
      expect(root).toBeDefined();
      expect(lineCount(named.text)).toBe(
        lineCount(setLaunchEnv(LAUNCH, `train${cleaned(p)}`, { NCCL_GIN_ENABLE: '1' }).text),
      );
    }
  });
});
