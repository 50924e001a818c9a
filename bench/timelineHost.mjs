#!/usr/bin/env node
// A host-held timeline in a real VS Code extension host: the host-held integration test
// (test/integration/suite/timelineHostHeld.test.ts) run alone, through
// test/integration/runTests.mjs as `npm run test:integration` runs it, on two timelines of about
// --events events (default 10^7):
//   - the simulator's (`sdma-probe sweep --backend sim --sizes 1M --cus 64`, as bench/timeline.mjs
//     makes it): whole-nanosecond times, which the engine keeps as 32-bit offsets;
//   - the test's own (a real one-iteration timeline repeated, written into the run's folder):
//     its lanes have a few events in each 43.1 ms iteration, so 4,096 of a lane's events span
//     tens of seconds and the engine cuts its lanes into shorter blocks of 32-bit offsets
//     (docs/ARCHITECTURE.md, "Memory"), where it used to keep every time as float64.
// Printed for each: the extension host's resident memory before the timeline opens, the most it
// held while its engine read, surveyed and indexed the file and answered the page's first view
// (sampled every 20 ms), the process's own peak (maxRSS), and what was left after the editor
// closed; then the engine's own process (runs/timelineEngineHost.ts starts it), its resident
// memory and peak once the first view is answered. Reference: the file's size (the events' own
// bytes), with the engine's peak beside it, in bytes an event. Target: no process over 1,000 MB
// while loading (bench/timeline.mjs measures a Node stand-in for the host; this is the host
// itself, with VS Code's own load, and the engine as the extension starts it).
//
//   node bench/timelineHost.mjs [--events N] [--kind sim|repeated]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTimeline } from '../test/webview/timelineHarness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const events = Number(flag('--events') ?? 10_000_000);
const kinds = flag('--kind') ? [flag('--kind')] : ['sim', 'repeated'];
if (!Number.isSafeInteger(events) || events <= 0 || kinds.some((k) => k !== 'sim' && k !== 'repeated')) {
  console.error('usage: node bench/timelineHost.mjs [--events N] [--kind sim|repeated]');
  process.exit(2);
}
const TARGET_MB = 1000;
/** Events of one iteration of the four paths at 1 MiB with 64 CUs (docs/SIMULATOR.md). */
const SIM_EVENTS_PER_ITERATION = 136;

const scratch = mkdtempSync(join(tmpdir(), 'sdma-lens-timeline-host-'));
try {
  for (const kind of kinds) measure(kind);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** One VS Code run on a timeline of `kind`; prints its figures. */
function measure(kind) {
  const figuresFile = join(scratch, `figures-${kind}.json`);
  const given =
    kind === 'sim'
      ? makeTimeline(scratch, {
          sizes: '1M',
          cus: 64,
          iters: Math.max(1, Math.round(events / SIM_EVENTS_PER_ITERATION)),
        })
      : undefined;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'test', 'integration', 'runTests.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      SDMA_LENS_TEST_GREP: 'a timeline the extension host holds',
      SDMA_LENS_HOST_HELD_EVENTS: String(events),
      SDMA_LENS_HOST_HELD_FIGURES: figuresFile,
      ...(given ? { SDMA_LENS_HOST_HELD_FILE: given } : {}),
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (given) rmSync(given, { force: true });
  let f;
  try {
    f = JSON.parse(readFileSync(figuresFile, 'utf8'));
  } catch {
    process.stdout.write(r.stdout.slice(-6000));
    process.stderr.write(r.stderr.slice(-6000));
    throw new Error(`the host-held test wrote no figures (runTests.mjs exited ${r.status})`);
  }
  if (r.status !== 0) throw new Error(`runTests.mjs exited ${r.status} after writing its figures`);
  const mb = (x) => `${x.toFixed(0).padStart(5)} MB`;
  const fileMb = f.fileBytes / 1024 / 1024;
  const host = Math.max(f.residentLoadingMb, f.peakAfterMb > f.peakBeforeMb ? f.peakAfterMb : 0);
  const what = kind === 'sim' ? "the simulator's timeline" : "the test's repeated timeline";
  console.log(
    `${what} in a real VS Code extension host (Node ${f.node}), ${f.events.toLocaleString('en-US')} events, ` +
      `file ${fileMb.toFixed(0)} MB (${((performance.now() - t0) / 1000).toFixed(0)} s with VS Code's start)`,
  );
  console.log(`  extension host before opening   ${mb(f.residentBeforeMb)}`);
  console.log(
    `  most while loading (20 ms)      ${mb(f.residentLoadingMb)}   process peak ${mb(f.peakAfterMb).trim()} ` +
      `(${f.peakAfterMb > f.peakBeforeMb ? 'set while loading' : `before opening: ${mb(f.peakBeforeMb).trim()}`})`,
  );
  console.log(`  indexed, first view answered    ${mb(f.residentIndexedMb)}`);
  console.log(`  after its editor closed         ${mb(f.residentClosedMb)}`);
  const engine = f.enginePeakMb;
  if (engine === undefined || engine === null) {
    console.log('  the engine process: not measured (no /proc here)');
  } else {
    console.log(
      `  the engine process              ${mb(f.engineResidentMb)}   peak ${mb(engine).trim()}, ` +
        `${((engine * 1024 * 1024) / f.events).toFixed(0)} bytes an event; reference, the file: ${mb(fileMb).trim()}, ` +
        `ratio ${(engine / fileMb).toFixed(2)}`,
    );
  }
  const most = Math.max(host, engine ?? 0);
  console.log(
    `  most of any process / target: ${most.toFixed(0)} / ${TARGET_MB} MB (host ${host.toFixed(0)}, engine ${
      engine === undefined || engine === null ? '-' : engine.toFixed(0)
    }; ${most <= TARGET_MB ? 'met' : 'NOT MET'})`,
  );
}
