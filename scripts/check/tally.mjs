// The counts behind `npm test`'s summary line, "N passed, N failed, N skipped", and how each
// kind of result is read into them. A check that could not run for a missing prerequisite is
// skipped with its reason, or, in CI, a failure (CI installs every prerequisite).

export class Tally {
  constructor({ ci = false, log = (line) => console.log(line) } = {}) {
    this.ci = ci;
    this.log = log;
    this.passed = 0;
    this.failed = 0;
    this.skipped = 0;
    /** "count × reason" of everything skipped. */
    this.skips = [];
  }

  pass(n = 1) {
    this.passed += n;
  }

  fail(n = 1) {
    this.failed += n;
  }

  /** `count` checks that could not run here for a missing prerequisite. */
  missing(count, reason) {
    if (this.ci) {
      this.log(`error (CI): ${reason}`);
      this.failed += count;
    } else {
      this.log(`> skipped: ${reason}`);
      this.skip(count, reason);
    }
  }

  /** `count` checks that a test run skipped by itself (never a failure). */
  skip(count, reason) {
    if (count <= 0) return;
    this.skipped += count;
    this.skips.push(`${count} × ${reason}`);
  }

  /** One check run as a process: exit 0 passes. */
  exitCode(code) {
    if (code === 0) this.passed++;
    else this.failed++;
  }

  /**
   * vitest's JSON report (undefined when it could not be read) and vitest's exit code: a
   * non-zero exit without a failed test (a crashed file, a failed setup) is one failure.
   */
  vitest(report, status) {
    if (!report) {
      this.failed++;
      return;
    }
    this.passed += report.numPassedTests ?? 0;
    this.failed += (report.numFailedTests ?? 0) + (status !== 0 && !report.numFailedTests ? 1 : 0);
    // describe.skipIf / it.skip / filtered ones are "pending"; it.todo ones "todo".
    this.skip(
      (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
      'vitest tests skipped or todo (e.g. the ssh tests without /usr/sbin/sshd: sudo apt-get install -y openssh-server)',
    );
  }

  /** native/ci/compile-check.sh: one "ok   ", "FAIL " or "skip " line per check. */
  compileCheck(stdout, status) {
    const ok = (stdout.match(/^ok {3}/gm) ?? []).length;
    const bad = (stdout.match(/^FAIL /gm) ?? []).length;
    this.passed += ok;
    this.failed += bad + (status !== 0 && bad === 0 ? 1 : 0);
    for (const line of stdout.match(/^skip .*$/gm) ?? []) this.missing(1, `compile check ${line.slice(5)}`);
  }

  /** A suite with the `--json FILE` contract {passed, failed, skipped?} (undefined: no report), and its exit code. */
  suite(title, result, code) {
    if (!result || typeof result.passed !== 'number' || typeof result.failed !== 'number') {
      this.failed++;
      return;
    }
    this.passed += result.passed;
    this.failed += result.failed + (code !== 0 && result.failed === 0 ? 1 : 0);
    this.skip(result.skipped ?? 0, `checks of "${title}" (it says why in its output)`);
  }

  summary() {
    return `${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped`;
  }
}
