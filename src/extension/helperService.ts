/**
 * Finds (or builds) the helper once per session and remembers it; a build shows progress
 * and can be cancelled. Settings changes forget the cached answer.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HelperInfo } from '../core/helper';
import { HELPER_NAME, locateHelper } from '../core/helper';
import { helperPathSetting } from './settings';

export class HelperService implements vscode.Disposable {
  private cached: Promise<HelperInfo> | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sdmaLens.helperPath')) this.cached = undefined;
    });
  }

  /** Resolves the helper, building it from the bundled sources if needed. */
  get(): Promise<HelperInfo> {
    if (!this.cached) {
      this.cached = this.locate();
      // A failure is not cached: the user may install CMake or fix the setting and retry.
      this.cached.catch(() => (this.cached = undefined));
    }
    return this.cached;
  }

  private async locate(): Promise<HelperInfo> {
    const root = this.context.extensionUri.fsPath;
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SDMA Lens: preparing the helper', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        try {
          const info = await locateHelper({
            configuredPath: helperPathSetting(),
            bundledPaths: [path.join(root, 'bin', HELPER_NAME), path.join(root, 'native', 'build', HELPER_NAME)],
            build: {
              sourceDir: path.join(root, 'native'),
              cacheDir: this.context.globalStorageUri.fsPath,
              onProgress: (message) => {
                progress.report({ message });
                this.log.info(message);
              },
              onOutput: (line) => this.log.trace(`[build] ${line}`),
            },
            signal: controller.signal,
          });
          this.log.info(`helper ${info.path} (${info.source}, version ${info.version}, backends ${info.backends.join(', ')})`);
          return info;
        } finally {
          sub.dispose();
        }
      },
    );
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
