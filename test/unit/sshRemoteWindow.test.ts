/**
 * In a Remote-SSH window the extension host (and so the helper and the run files) is on the
 * node while the webview draws in the UI, on the laptop. These checks hold the line that the
 * webview never needs the node's file system: it gets data by message only, and nothing it
 * receives names a file on the node.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHostMessage } from '../../src/core/sweep/sweepMessages';
import type { Run } from '../../src/core/run';
import { newRun } from '../../src/core/run';
import { sweepView } from '../../src/core/sweep/sweepView';
import { done, header, hello, sample } from '../support/records';

const repo = resolve(__dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

describe('Remote-SSH window: the webview needs no file system of the node', () => {
  it('the extension runs on the node side of a remote window', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { extensionKind: string[] };
    expect(pkg.extensionKind).toEqual(['workspace']);
  });

  it('panels load only the bundled webview assets (served by VS Code), never run folders', () => {
    const hosts = files(join(repo, 'src', 'extension')).filter((f) => f.endsWith('.ts'));
    const roots = hosts.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/localResourceRoots:\s*\[([^\]]*)\]/g)].map((m) => ({
        file,
        root: m[1]!.trim(),
      })),
    );
    expect(roots.length).toBeGreaterThan(0);
    for (const { file, root } of roots) expect(root, file).toBe("vscode.Uri.joinPath(extensionUri, 'dist', 'webview')");
    // Every panel is created or revived with those options, never options of its own.
    const makers = hosts.filter((f) => /createWebviewPanel\(|webview\.options\s*=/.test(readFileSync(f, 'utf8')));
    expect(makers.length).toBeGreaterThanOrEqual(2);
    for (const file of makers) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/createWebviewPanel\([^;]*;|webview\.options\s*=[^;]*;/g))
        expect(m[0], file).toMatch(/panelOptions\(/);
    }
  });

  it('webview code never reads files or builds resource URIs itself', () => {
    for (const file of files(join(repo, 'webview')).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from ['"]node:|require\(|vscode-resource|file:\/\/|asWebviewUri/);
    }
  });

  it('what a panel is sent about an SSH run carries its data, not paths on the node', () => {
    const nodePath = '/home/alice/.cache/sdma-lens/helper-0123456789abcdef/sdma-probe';
    const run: Run = newRun({
      ...header('ssh-run', ['sweep', '--timeline-out', '/home/alice/.cache/sdma-lens/out/ssh-run/timeline.sdmatl']),
      target: { kind: 'ssh', host: 'alice@gpu-node-3' },
      helper: { path: nodePath, args: ['sweep'] },
    });
    run.hello = hello as Run['hello'];
    run.samples.push(sample(), sample({ sizeBytes: 4096 }));
    run.done = done as Run['done'];
    const view = sweepView(run);
    const text = JSON.stringify(view);
    expect(text).not.toContain('/home/alice');
    expect(text).not.toContain('.cache/sdma-lens');
    expect(view.series.length).toBeGreaterThan(0);
    // The message the host posts round-trips through the webview's own validator.
    const message = parseHostMessage({ type: 'sweep', view });
    expect(message).toBeDefined();
    expect(JSON.stringify(message)).not.toContain('/home/alice');
  });
});
