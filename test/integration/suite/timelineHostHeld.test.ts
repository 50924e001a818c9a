import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { HOST_HELD_EVENTS } from '../../../src/core/timeline/timelineMessages';
import { timelineKey } from '../../../src/extension/commands/showTimeline';
import { EVENTS_PER_REPEAT, writeRepeatedTimeline } from './bigTimeline';
import { SMALL_SWEEP, type TimelinePanelView, activeApi, runsFolder, waitFor } from './support';

/** The engine thread's name (`new Worker(..., { name })`) as Linux keeps it: 15 characters. */
const ENGINE_THREAD = 'sdma-lens-timel';

/**
 * Threads of this process (the extension host, where the tests run) called `name`. Recent Node
 * names a worker's thread after its `name` option; an older one leaves them all unnamed.
 */
function threadsNamed(name: string): number {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  return tasks.filter((t) => {
    try {
      return readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  }).length;
}

const engineThreads = () => threadsNamed(ENGINE_THREAD);

/** Whether this extension host's Node names worker threads, so that the engine's can be seen. */
async function workerThreadsNamed(): Promise<boolean> {
  const probe = new Worker('setInterval(() => {}, 1000)', { eval: true, name: 'sdma-lens-probe' });
  try {
    await once(probe, 'online');
    return threadsNamed('sdma-lens-probe') === 1;
  } finally {
    await probe.terminate();
  }
}

/** The panel's state, or the reason its timeline could not be opened as the failure. */
function heldState(panel: TimelinePanelView) {
  if (panel.loadFailure) throw new Error(panel.loadFailure);
  return panel.hostHeldState;
}

suite('a timeline the extension host holds', () => {
  test('a .sdmatl of HOST_HELD_EVENTS events or more is read, indexed and queried by an engine thread that ends with its editor', async function () {
    this.timeout(180_000);
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();

    // A little over the threshold, beside the run it is drawn with (about 100 MB).
    const file = path.join(runsFolder(), run.header.id, 'host-held.sdmatl');
    const seesThreads = await workerThreadsNamed();
    const threadsBefore = engineThreads();
    try {
      const count = writeRepeatedTimeline(file, Math.ceil(HOST_HELD_EVENTS / EVENTS_PER_REPEAT) + 1);
      assert.ok(count > HOST_HELD_EVENTS, `${count} events`);

      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));
      const key = timelineKey(run.header.id, { kind: 'file', file });
      const panel = await waitFor('the timeline panel of that file', () => api.timelinePanel(key));
      const tab = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputCustom && t.input.uri.fsPath === file);
      assert.ok(tab && tab.input instanceof vscode.TabInputCustom, 'no editor tab for the file');
      assert.equal(tab.input.viewType, 'sdmaLens.timelineFile');

      const indexed = await waitFor(
        'the engine thread to read the file and build the index',
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
      // The engine runs in its own thread of this process (seen where Node names threads).
      if (seesThreads) assert.equal(engineThreads(), threadsBefore + 1, 'the engine thread is not running');

      // The page asked for its first level of detail (engine-query), and the thread's answer came back.
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

      // Closing the editor ends the thread.
      await vscode.window.tabGroups.close(tab);
      await waitFor('the panel to close', () => !api.timelinePanel(key));
      assert.equal(panel.hostHeldState?.running, false, 'the closed panel still holds its engine');
      if (seesThreads) await waitFor('the engine thread to exit', () => engineThreads() === threadsBefore);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
