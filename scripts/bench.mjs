// `npm run bench`: bundles each bench/*.bench.ts with esbuild and runs it with Node, then the
// timeline in headless Chromium (bench/timeline.mjs: 10^6 events, then 10^7 beside chart.js at
// 10^6) and in a real VS Code extension host (bench/timelineHost.mjs), the figures the README's
// Performance table quotes. Without /usr/bin/chromium the
// browser benchmarks are said to be skipped. `npm run bench -- NAME` runs those whose file name
// holds NAME (`-- timeline.mjs` the browser ones alone).
// Each benchmark prints its figure, the reference measured in the same run, and the ratio; a
// target missed is printed, not fatal. A benchmark that finds a wrong result (refine's crossovers
// outside the dense grid's) or fails exits non-zero: the others still run, and this exits 1 after
// naming them.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { prepare, root, run } from './prepare.mjs';

prepare();
// Imported only after prepare(), which installs it on a fresh clone.
const esbuild = await import('esbuild');
const out = join(root, 'node_modules', '.cache', 'sdma-lens-bench');
mkdirSync(out, { recursive: true });
const only = process.argv[2];
const failed = [];
for (const file of readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()) {
  if (only && !file.includes(only)) continue;
  const bundle = join(out, file.replace(/\.ts$/, '.cjs'));
  await esbuild.build({
    entryPoints: [join(root, 'bench', file)],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  console.log(`\n== ${file}`);
  if (run(process.execPath, [bundle, join(root, 'native', 'build', 'sdma-probe')]) !== 0) failed.push(file);
}
/** The browser benchmarks: bench/timeline.mjs at the sizes the README quotes. */
const BROWSER = [
  { name: 'timeline.mjs, 10^6 events', args: ['--events', '1000000', '--frames', '60'] },
  {
    name: 'timeline.mjs, 10^7 events',
    args: ['--events', '10000000', '--frames', '60', '--reference-events', '1000000'],
  },
];
if (!only || 'timeline.mjs'.includes(only)) {
  for (const b of BROWSER) {
    console.log(`\n== ${b.name}`);
    if (!existsSync('/usr/bin/chromium'))
      console.log('skipped: /usr/bin/chromium is missing (sudo apt-get install -y chromium)');
    else if (run(process.execPath, [join(root, 'bench', 'timeline.mjs'), ...b.args]) !== 0) failed.push(b.name);
  }
}
// A host-held timeline in a real VS Code extension host (the VS Code server of the integration
// tests in headless Chromium where no desktop VS Code can be had): the host's and the engine's memory.
if (!only || 'timelineHost.mjs'.includes(only)) {
  console.log('\n== timelineHost.mjs, 10^7 events in a VS Code extension host');
  if (!existsSync('/usr/bin/chromium'))
    console.log('skipped: /usr/bin/chromium is missing (sudo apt-get install -y chromium)');
  else if (run(process.execPath, [join(root, 'bench', 'timelineHost.mjs')]) !== 0) failed.push('timelineHost.mjs');
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
