/** The helper's arguments for reading a profile the user has: a folder holds rocprofv3's CSV traces, a file is its rocpd database. */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

export async function importArgs(path: string): Promise<string[]> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch {
    throw new Error(`${path} does not exist: pick the .db file or the CSV folder rocprofv3 wrote`);
  }
  return ['import', isFolder ? '--rocprofv3-csv' : '--rocpd', resolve(path)];
}
