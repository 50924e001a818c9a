/**
 * Writing a file into a run folder that someone else may have prepared (a folder committed to
 * a repository, unpacked from an archive): the text goes to a new private file beside it,
 * created exclusively, and is renamed into place only when whole. A link or a special file
 * where the file should be is refused, never written through.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, rename, rm } from 'node:fs/promises';
import { RunFileError } from './runStore';

async function refuseOddTarget(file: string): Promise<void> {
  const st = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) return;
  if (st.isSymbolicLink())
    throw new RunFileError(
      `${file} is a symbolic link: SDMA Lens does not write through links; remove it and export again`,
    );
  if (!st.isFile()) throw new RunFileError(`${file} is not a regular file; remove it and export again`);
}

/** Writes the chunks to `file` (replacing a regular file there) through a new file renamed into place. */
export async function writeNewFile(file: string, chunks: Iterable<string> | AsyncIterable<string>): Promise<void> {
  await refuseOddTarget(file);
  const part = `${file}.${randomBytes(6).toString('hex')}.part`;
  // 'wx': O_CREAT | O_EXCL, which also fails on a link someone placed at this name.
  const handle = await open(part, 'wx', 0o644);
  try {
    for await (const chunk of chunks) await handle.write(chunk, null, 'utf8');
    await handle.close();
    await refuseOddTarget(file);
    await rename(part, file);
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(part, { force: true });
    throw err;
  }
}
