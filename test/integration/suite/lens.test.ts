import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import {
  EXTENSION_ID,
  activeApi,
  invocations,
  lensTitles,
  spyOnWindow,
  timelineFromLens,
  waitFor,
  withSourceFile,
} from './support';

const SOURCE = `#include <hip/hip_runtime.h>
// A kernel whose name the simulator's run mode reports, so the lens can show its facts.
__global__ void __launch_bounds__(256) fusedComputeA2a(const float* in, float* const* out, int n, int peers, size_t bytes) {}
__global__ void notProfiled(int* p) { *p = 0; }
`;

suite('code lenses above kernels and the Profile run', () => {
  test('Profile lenses on every kernel; after a run, the facts above the kernel it ran, a hover, and its timeline from the lens', async () => {
    await activeApi();
    await withSourceFile('lens_sample.hip', SOURCE, async (doc, folder) => {
      const before = await waitFor('the Profile lenses', async () => {
        const t = await lensTitles(doc);
        return t.filter((x) => x.includes('Profile')).length === 2 ? t : undefined;
      });
      // One Profile lens per kernel (facts of a run an earlier test made may stand beside them).
      assert.equal(before.filter((x) => x.includes('Profile')).length, 2, `lenses: ${before.join(' | ')}`);
      assert.ok(
        before.every((x) => x.includes('Profile') || / avg x \d+ launches/.test(x)),
        `lenses: ${before.join(' | ')}`,
      );

      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', {
        uri: doc.uri.toString(),
        kernel: 'fusedComputeA2a',
        program: { program: '/bin/sh', args: ['-c', 'echo profiled program ran'], cwd: folder, env: {} },
        simDispatches: 4,
      });
      assert.equal(run?.end?.status, 'ok', run?.end?.message);
      assert.equal(run?.program?.exit?.exitCode, 0);
      assert.equal(run?.hello?.simulated, true);
      assert.ok(!run!.header.helper.args.includes('--library-log'), 'the library log is off by default');

      const after = await waitFor('the summary lens', async () => {
        const t = await lensTitles(doc);
        return t.find((x) => / avg x 4 launches/.test(x));
      });
      assert.match(after, /^[\d.]+ (ns|µs|ms|s) avg x 4 launches/);
      const offset = doc.getText().indexOf('fusedComputeA2a');
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        doc.positionAt(offset + 3),
      );
      const text = hovers
        .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')))
        .join('\n');
      assert.match(text, /4 launches/, `hovers: ${text}`);
      // The hover links to the timeline and keeps the link to the text summary.
      assert.match(text, /\(command:sdmaLens\.showTimeline\?/, `hovers: ${text}`);
      assert.match(text, /\[Open summary\]\(command:sdmaLens\.openProfile\?/, `hovers: ${text}`);
      // Only the kernel that ran gets facts.
      assert.equal((await lensTitles(doc)).filter((x) => /avg x/.test(x)).length, 1);

      // The summary lens opens the run's timeline filtered to that kernel's launches.
      const { command, panel, applied } = await timelineFromLens(doc, /avg x 4 launches/, run!.header.id);
      assert.equal(command, 'sdmaLens.showTimeline');
      const printed = run!.dispatches[0]!.name;
      assert.equal(panel.meta.filter, `kernel:"${printed.replace(/["\\]/g, '\\$&')}"`);
      assert.equal(panel.meta.simulated, true, 'simulated records are labelled simulated');
      assert.match(panel.meta.title, /kernel fusedComputeA2a/);
      // The page got the columns and applied the filter: the 4 launches and what ran during them.
      assert.equal(applied.filter, panel.meta.filter);
      assert.ok(
        applied.kept >= 4 && applied.kept <= run!.dispatches.length + run!.copies.length,
        `kept ${applied.kept}`,
      );
      panel.panel.dispose();
    });
  });

  test("sdmaLens.profile.libraryLog: Profile asks for the library's log and the summary says which path each collective took", async () => {
    await activeApi();
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const config = vscode.workspace.getConfiguration('sdmaLens');
    await config.update('profile.libraryLog', true, vscode.ConfigurationTarget.Workspace);
    try {
      // A stand-in two-rank program writing RCCL's GIN lines into the files NCCL_DEBUG_FILE names.
      const program = {
        program: path.join(root, 'test', 'fixtures', 'runmode', 'library-log-ranks.sh'),
        args: ['rccl'],
        cwd: folder,
        env: {},
      };
      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', {
        program,
        simDispatches: 1,
      });
      assert.equal(run?.end?.status, 'ok', run?.end?.message);
      assert.ok(run!.header.helper.args.includes('--library-log'), run!.header.helper.args.join(' '));
      assert.deepEqual(
        run!.libraryCalls?.map((c) => [c.transport, c.minBytes, c.calls]),
        [
          ['lsa', 262144, 2],
          ['sdma', 524288, 3],
          ['sdma', 1048576, 3],
          ['sdma', 67108864, 1],
        ],
      );
    } finally {
      await config.update('profile.libraryLog', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('sdmaLens.codeLens.enabled: off removes the lenses at once, on brings them back', async () => {
    await activeApi();
    const config = vscode.workspace.getConfiguration('sdmaLens');
    await withSourceFile(
      'lens_toggle.hip',
      '#include <hip/hip_runtime.h>\n__global__ void toggled(int* p) { *p = 1; }\n',
      async (doc) => {
        try {
          await waitFor('the Profile lens', async () => (await lensTitles(doc)).some((t) => /Profile/.test(t)));
          await config.update('codeLens.enabled', false, vscode.ConfigurationTarget.Workspace);
          await waitFor('no lens', async () => (await lensTitles(doc)).every((t) => !/Profile/.test(t)));
          await config.update('codeLens.enabled', true, vscode.ConfigurationTarget.Workspace);
          await waitFor('the Profile lens again', async () => (await lensTitles(doc)).some((t) => /Profile/.test(t)));
        } finally {
          await config.update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Workspace);
        }
      },
    );
  });

  test('sdmaLens.profile.env with a NUL in a value runs nothing and names the variable', async () => {
    await activeApi();
    const config = vscode.workspace.getConfiguration('sdmaLens');
    const before = invocations().length;
    const errors = spyOnWindow('showErrorMessage');
    let run: Run | undefined;
    try {
      await config.update('profile.program', '/bin/true', vscode.ConfigurationTarget.Workspace);
      await config.update('profile.env', { GOOD: 'x', BAD: 'a\u0000b' }, vscode.ConfigurationTarget.Workspace);
      run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', { simDispatches: 1 });
    } finally {
      errors.restore();
      await config.update('profile.env', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('profile.program', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(run, undefined, 'nothing ran');
    assert.match(
      errors.calls.map((c) => String(c[0])).join(' | '),
      /Setting sdmaLens\.profile\.env: the value of BAD contains a NUL character/,
    );
    assert.equal(invocations().length, before, 'the helper was not started');
  });

  test('sdmaLens.profile.spanRecords: passed to the run as --span-records; a hostile value runs nothing and says what is wrong', async () => {
    await activeApi();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const config = vscode.workspace.getConfiguration('sdmaLens');
    const program = { program: '/bin/sh', args: ['-c', 'true'], cwd: folder, env: {} };
    try {
      await config.update('profile.spanRecords', 5, vscode.ConfigurationTarget.Workspace);
      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', {
        program,
        simDispatches: 1,
      });
      assert.equal(run?.end?.status, 'ok', run?.end?.message);
      const args = run!.header.helper.args;
      assert.deepEqual(args.slice(args.indexOf('--span-records'), args.indexOf('--span-records') + 2), [
        '--span-records',
        '5',
      ]);

      const before = invocations().length;
      const errors = spyOnWindow('showErrorMessage');
      let hostile: Run | undefined;
      try {
        await config.update('profile.spanRecords', -3, vscode.ConfigurationTarget.Workspace);
        hostile = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profile', {
          program,
          simDispatches: 1,
        });
      } finally {
        errors.restore();
      }
      assert.equal(hostile, undefined, 'nothing ran');
      assert.match(
        errors.calls.map((c) => String(c[0])).join(' | '),
        /Setting sdmaLens\.profile\.spanRecords: must be a whole number from 0 to \d+, not -3/,
      );
      assert.equal(invocations().length, before, 'the helper was not started');
    } finally {
      await config.update('profile.spanRecords', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
