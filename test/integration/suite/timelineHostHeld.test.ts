import * as assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  copyFileSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { processMemory } from '../../../src/core/runs/timelineEngineHost';
import { HOST_HELD_EVENTS } from '../../../src/core/timeline/timelineMessages';
import { timelineKey } from '../../../src/extension/commands/showTimeline';
import { EVENTS_PER_REPEAT, writeRepeatedTimeline } from './bigTimeline';
import { SMALL_SWEEP, type TimelinePanelView, activeApi, runsFolder, waitFor } from './support';

/**
 * Whether process `pid` runs the engine's bundle as a child of this process (the extension host,
 * where the tests run): alive, not a zombie, its parent this process, dist/timelineEngine.js on
 * its command line. From /proc: false where there is none.
 */
function engineRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return (
      !/^State:\s+Z/m.test(status) &&
      new RegExp(`^PPid:\\s+${process.pid}$`, 'm').test(status) &&
      cmdline.split('\0').some((arg) => arg.endsWith(path.join('dist', 'timelineEngine.js')))
    );
  } catch {
    return false;
  }
}

/**
 * The timeline's size: a little over HOST_HELD_EVENTS, or SDMA_LENS_HOST_HELD_EVENTS when that
 * asks for more (bench/timelineHost.mjs asks for 10^7).
 */
/** SDMA_LENS_HOST_HELD_FILE: a timeline file copied beside the run instead (bench/timelineHost.mjs names the simulator's). */
const GIVEN_FILE = process.env.SDMA_LENS_HOST_HELD_FILE;

/** The event count an sdmatl file's header gives (docs/PROTOCOL.md: a little-endian u64 at byte 16). */
function eventsIn(file: string): number {
  const head = Buffer.alloc(32);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return Number(head.readBigUInt64LE(16));
}

function repeatsWanted(): number {
  const asked = Number(process.env.SDMA_LENS_HOST_HELD_EVENTS);
  if (Number.isSafeInteger(asked) && asked > HOST_HELD_EVENTS) return Math.ceil(asked / EVENTS_PER_REPEAT);
  return Math.ceil(HOST_HELD_EVENTS / EVENTS_PER_REPEAT) + 1;
}

const MB = 1024 * 1024;

/** This process's resident memory sampled every 20 ms until `stop`, which gives the most seen (MiB). */
function sampleResident(): { stop(): number } {
  let most = process.memoryUsage.rss();
  const timer = setInterval(() => (most = Math.max(most, process.memoryUsage.rss())), 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(most, process.memoryUsage.rss()) / MB;
    },
  };
}

/** The panel's state, or the reason its timeline could not be opened as the failure. */
function heldState(panel: TimelinePanelView) {
  if (panel.loadFailure) throw new Error(panel.loadFailure);
  return panel.hostHeldState;
}

suite('a timeline the extension host holds', () => {
  test('a .sdmatl of HOST_HELD_EVENTS events or more is read, indexed and queried by an engine process that ends with its editor', async function () {
    this.timeout(180_000);
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();

    // A little over the threshold, beside the run it is drawn with (about 100 MB).
    const file = path.join(runsFolder(), run.header.id, 'host-held.sdmatl');
    try {
      if (GIVEN_FILE) copyFileSync(GIVEN_FILE, file, constants.COPYFILE_EXCL);
      const count = GIVEN_FILE ? eventsIn(file) : writeRepeatedTimeline(file, repeatsWanted());
      assert.ok(count > HOST_HELD_EVENTS, `${count} events`);

      // This extension host's memory before the timeline opens and while it loads (written out
      // for bench/timelineHost.mjs when SDMA_LENS_HOST_HELD_FIGURES names a file).
      const residentBefore = process.memoryUsage.rss() / MB;
      const peakBefore = process.resourceUsage().maxRSS / 1024;
      const resident = sampleResident();
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));
      const key = timelineKey(run.header.id, { kind: 'file', file });
      const panel = await waitFor('the timeline panel of that file', () => api.timelinePanel(key));
      const tab = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputCustom && t.input.uri.fsPath === file);
      assert.ok(tab && tab.input instanceof vscode.TabInputCustom, 'no editor tab for the file');
      assert.equal(tab.input.viewType, 'sdmaLens.timelineFile');

      const indexed = await waitFor(
        'the engine to read the file and build the index',
        () => {
          const s = heldState(panel);
          return s?.indexed && s;
        },
        90_000,
      );
      assert.equal(indexed.count, count);
      assert.equal(indexed.running, true);
      // First the overview (the survey of the file, from which the first frame is drawn), then the built index.
      assert.equal(indexed.surveyed, true);
      assert.equal(indexed.answers.overview, 1);
      assert.equal(indexed.answers.index, 1);
      // The engine runs in a process of its own, a child of this extension host.
      const pid = indexed.pid;
      assert.ok(engineRunning(pid), `the engine's process (${pid}) is not running dist/timelineEngine.js`);

      // The page asked for its first level of detail (engine-query), and the engine's answer came back.
      const answered = await waitFor(
        "the engine's answer to the page's first level-of-detail query",
        () => {
          const s = heldState(panel);
          return (s?.answers.lod ?? 0) > 0 && s;
        },
        60_000,
      );
      assert.equal(answered.answers.error, undefined, 'the engine answered a query with an error');
      assert.equal(answered.running, true);
      const residentLoading = resident.stop();
      const residentIndexed = process.memoryUsage.rss() / MB;
      const peakAfter = process.resourceUsage().maxRSS / 1024;

      const engineMemory = processMemory(pid!);
      // Closing the editor ends the engine.
      await vscode.window.tabGroups.close(tab);
      await waitFor('the panel to close', () => !api.timelinePanel(key));
      assert.equal(panel.hostHeldState?.running, false, 'the closed panel still holds its engine');
      await waitFor('the engine process to end', () => !engineRunning(pid));
      const figures = process.env.SDMA_LENS_HOST_HELD_FIGURES;
      if (figures)
        writeFileSync(
          figures,
          JSON.stringify({
            events: count,
            fileBytes: statSync(file).size,
            node: process.version,
            residentBeforeMb: residentBefore,
            residentLoadingMb: residentLoading,
            residentIndexedMb: residentIndexed,
            residentClosedMb: process.memoryUsage.rss() / MB,
            peakBeforeMb: peakBefore,
            peakAfterMb: peakAfter,
            engineResidentMb: engineMemory?.residentMb,
            enginePeakMb: engineMemory?.peakMb,
          }),
        );
    } finally {
      rmSync(file, { force: true });
    }
  });
});
