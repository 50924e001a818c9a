// The counts of `npm test`'s summary line (scripts/check/tally.mjs): every kind of result,
// read from what the real tools print, lands in passed, failed or skipped.
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { Tally as TallyClass } from '../../scripts/check/tally.mjs';

interface TallyLike {
  passed: number;
  failed: number;
  skipped: number;
  skips: string[];
  pass(n?: number): void;
  missing(count: number, reason: string): void;
  exitCode(code: number | null): void;
  vitest(report: object | undefined, status: number): void;
  compileCheck(stdout: string, status: number | null): void;
  suite(title: string, result: object | undefined, code: number): void;
  summary(): string;
}
const Tally = TallyClass as new (o: { ci?: boolean; log?: (l: string) => void }) => TallyLike;
const quiet = (ci = false) => new Tally({ ci, log: () => {} });

const compileOutput = [
  'ok   cuda backend, nvcc sm_90 (CMake build + ctest) (41 s)',
  'FAIL hip backend, hipcc gfx90a',
  'skip hip backend gfx942: no clang++-19 (apt install clang-19)',
  'skip hip backend gfx90a: no hipcc (apt install hipcc)',
  '',
].join('\n');

describe('npm test tally', () => {
  it('counts vitest passed, failed, skipped and todo tests', () => {
    const t = quiet();
    t.vitest({ numPassedTests: 10, numFailedTests: 2, numPendingTests: 3, numTodoTests: 1 }, 1);
    expect(t.summary()).toBe('10 passed, 2 failed, 4 skipped');
  });

  it('a vitest exit without a report, or a failing exit without a failed test, is a failure', () => {
    const t = quiet();
    t.vitest(undefined, 1);
    t.vitest({ numPassedTests: 5, numFailedTests: 0 }, 1);
    expect([t.passed, t.failed]).toEqual([5, 2]);
  });

  it("reads the compile check's ok, FAIL and skip lines; in CI a skip is a failure", () => {
    const local = quiet();
    local.compileCheck(compileOutput, 1);
    expect(local.summary()).toBe('1 passed, 1 failed, 2 skipped');
    const ci = quiet(true);
    ci.compileCheck(compileOutput, 1);
    expect(ci.summary()).toBe('1 passed, 3 failed, 0 skipped');
  });

  it('a compile check script that fails without a FAIL line is a failure', () => {
    const t = quiet();
    t.compileCheck('ok   a (1 s)\n', 2);
    expect(t.summary()).toBe('1 passed, 1 failed, 0 skipped');
  });

  it('counts every browser check by its exit code', () => {
    const t = quiet();
    for (const code of [0, 1, 0, 3]) t.exitCode(code);
    t.exitCode(null);
    expect(t.summary()).toBe('2 passed, 3 failed, 0 skipped');
  });

  it("reads the suites' --json contract, with and without skipped", () => {
    const t = quiet();
    t.suite('ui', { passed: 8, failed: 0 }, 0);
    t.suite('vsix', { passed: 3, failed: 1, skipped: 2 }, 1);
    t.suite('integration', { passed: 4, failed: 0 }, 1);
    t.suite('broken', undefined, 1);
    t.suite('odd', { passed: '3' }, 0);
    expect(t.summary()).toBe('15 passed, 4 failed, 2 skipped');
    expect(t.skips).toEqual(['2 × checks of "vsix" (it says why in its output)']);
  });

  it('a missing prerequisite is a skip with its reason here, a failure in CI', () => {
    const lines: string[] = [];
    const local = new Tally({ log: (l) => lines.push(l) });
    local.missing(3, 'the 3 test suites in VS Code (no Chromium)');
    expect(local.summary()).toBe('0 passed, 0 failed, 3 skipped');
    expect(lines).toEqual(['> skipped: the 3 test suites in VS Code (no Chromium)']);
    const ci = quiet(true);
    ci.missing(3, 'no Chromium');
    expect(ci.summary()).toBe('0 passed, 3 failed, 0 skipped');
  });
});
