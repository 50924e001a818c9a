/**
 * Opening a big saved run: a run file over 64 MiB takes seconds to minutes to read, so its
 * read shows a notification with how far it has come and a Cancel button (readRunFile polls
 * the cancel after each megabyte). A smaller file opens as before, with nothing shown.
 */
import { lstat } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { ReadRunOptions } from '../core/runs/runStore';
import { formatBytes } from '../core/units';

/** Files at least this large show the notification. */
export const OPEN_PROGRESS_BYTES = 64 * 1024 * 1024;

type ReadProgress = Pick<ReadRunOptions, 'signal' | 'onProgress'>;

/** Reads run `name` (its file `file`) through `read`, showing progress with Cancel when the file is big. */
export async function withOpenProgress<T>(
  file: string,
  name: string,
  read: (options: ReadProgress) => Promise<T>,
): Promise<T> {
  const size = (await lstat(file).catch(() => undefined))?.size ?? 0;
  if (size < OPEN_PROGRESS_BYTES) return read({});
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('SDMA Lens: opening run {0} ({1})', name, formatBytes(size)),
      cancellable: true,
    },
    (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      let percent = 0;
      return read({
        signal: controller.signal,
        onProgress: (bytesRead, total) => {
          const now = Math.min(100, Math.floor((bytesRead / Math.max(total, 1)) * 100));
          if (now <= percent) return;
          progress.report({ increment: now - percent, message: `${now} %` });
          percent = now;
        },
      });
    },
  );
}
