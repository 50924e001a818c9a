// How every browser check script ends: its problems listed and a failing exit code, or one
// line saying all passed; an exception in the script itself fails it with its stack.

/** A check prints its outcome and, when it fails, adds it to `failures` for report(). */
export function checker(failures) {
  return (ok, what) => {
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
    if (!ok) failures.push(`check failed: ${what}`);
  };
}

export function report(failures) {
  if (failures.length > 0) {
    console.error(`\n${failures.length} problem(s):\n${failures.map((f) => `  - ${f}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('\nno console errors, no CSP violations, all checks passed');
  }
}

export function runMain(main) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}
