/**
 * Finds (or builds) the helper once per session and target and remembers it; a build shows
 * progress and can be cancelled. Settings changes forget the cached answers. On an SSH
 * target the helper is found or built on the node (core/ssh/deploy.ts).
 *
 * Locally the helper shipped in the package (`bin/sdma-probe`) is used as it is, except on a
 * machine with ROCm, where the hip backend is built once from the shipped sources: its CMake
 * output goes line by line to the log channel and its percentage to the progress notification.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HelperInfo } from '../core/runtime/helper';
import { bundledHelperPaths, findRocm, hasAmdGpuDriver, locateHelper } from '../core/runtime/helper';
import type { SshConnection } from '../core/ssh/connection';
import type { RemoteHelperInfo } from '../core/ssh/deploy';
import { deployHelper } from '../core/ssh/deploy';
import type { HelperProvider, TargetHelper } from '../core/runtime/runFlow';
import type { Target } from '../core/runtime/target';
import { SshTarget } from '../core/ssh/sshTarget';
import { helperPathSetting, sshHelperPathSetting } from './settings';

export class HelperService implements vscode.Disposable, HelperProvider {
  private cached: Promise<HelperInfo> | undefined;
  private readonly remote = new Map<string, Promise<RemoteHelperInfo>>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sdmaLens.helperPath') || e.affectsConfiguration('sdmaLens.defaultBackend'))
        this.cached = undefined;
      if (e.affectsConfiguration('sdmaLens.ssh')) this.remote.clear();
    });
  }

  /** The helper where `target` runs: this machine's, or the node's over SSH. */
  helperFor(target: Target): Promise<TargetHelper> {
    return target instanceof SshTarget ? this.getRemote(target.connection) : this.get();
  }

  forget(target: Target): void {
    if (target instanceof SshTarget) this.forgetRemote(target.connection);
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
    const info = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('SDMA Lens: preparing the helper'),
        cancellable: true,
      },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        let step = '';
        try {
          const found = await locateHelper({
            configuredPath: helperPathSetting(this.log),
            bundledPaths: bundledHelperPaths(root),
            build: {
              sourceDir: path.join(root, 'native'),
              cacheDir: this.context.globalStorageUri.fsPath,
              onProgress: (message) => {
                step = message;
                progress.report({ message });
                this.log.info(message);
              },
              onOutput: (line) => this.log.info(`[build] ${line}`),
              onPercent: (increment, percent) => progress.report({ message: `${step} ${percent}%`, increment }),
            },
            hip: {
              backendSetting: vscode.workspace.getConfiguration('sdmaLens').get<string>('defaultBackend', 'auto'),
              rocm: findRocm(process.env),
              amdGpu: hasAmdGpuDriver(),
            },
            signal: controller.signal,
          });
          this.log.info(
            `helper ${found.path} (${found.source}, version ${found.version}, backends ${found.backends.join(', ')})`,
          );
          return found;
        } finally {
          sub.dispose();
        }
      },
    );
    if (info.hipBuildProblem) {
      this.log.warn(info.hipBuildProblem);
      const showLog = vscode.l10n.t('Show Log');
      void vscode.window
        .showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', info.hipBuildProblem), showLog)
        .then((choice) => (choice === showLog ? this.log.show() : undefined));
    }
    return info;
  }

  /** The helper on a node: a configured one, a cached build, one on its PATH, or a fresh build there. */
  getRemote(conn: SshConnection): Promise<RemoteHelperInfo> {
    const key = conn.label;
    let found = this.remote.get(key);
    if (!found) {
      found = this.deploy(conn);
      this.remote.set(key, found);
      found.catch(() => this.remote.delete(key));
    }
    return found;
  }

  /** Forgets what is known about a node's helper (after its connection dropped, the cache there may be gone). */
  forgetRemote(conn: SshConnection): void {
    this.remote.delete(conn.label);
  }

  private async deploy(conn: SshConnection): Promise<RemoteHelperInfo> {
    return await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('SDMA Lens: preparing the helper on {0}', conn.label),
        cancellable: true,
      },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        try {
          const info = await deployHelper(conn, {
            sourceDir: path.join(this.context.extensionUri.fsPath, 'native'),
            configuredPath: sshHelperPathSetting(this.log),
            signal: controller.signal,
            onProgress: (message) => {
              progress.report({ message });
              this.log.info(message);
            },
            onOutput: (line) => this.log.trace(`[build ${conn.label}] ${line}`),
          });
          this.log.info(
            `helper on ${conn.label}: ${info.path} (${info.source}, version ${info.version}, backends ${info.backends.join(', ')})`,
          );
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
