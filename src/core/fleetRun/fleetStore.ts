/**
 * Where fleet indexes live: `<runs folder>/../fleets/<id>/fleet.json`, beside the runs folder
 * so the runs list never mistakes a fleet for a run. Written whole to a new file and renamed
 * into place (a crash mid-write leaves the last whole index); read back through the schema.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import { readSafeFileSync } from '../runs/safeFile';
import type { FleetIndex } from '../fleet/fleetIndex';
import { FleetIndexSchema } from '../fleet/fleetIndex';

export const FLEET_FILE = 'fleet.json';

export class FleetStore {
  readonly root: string;

  /** `runsRoot`: the runs folder; fleets go in its sibling `fleets`. */
  constructor(runsRoot: string) {
    this.root = join(dirname(runsRoot), 'fleets');
  }

  fileOf(id: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(id) || id === '.' || id === '..') throw new Error(`"${id}" is not a fleet id`);
    return join(this.root, id, FLEET_FILE);
  }

  /** The fleet's own folder (its index, a queued fleet's job script and node files). */
  dirOf(id: string): string {
    return dirname(this.fileOf(id));
  }

  write(index: FleetIndex): string {
    const file = this.fileOf(index.id);
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(index, null, 1)}\n`, { flag: 'w', mode: 0o644 });
    renameSync(tmp, file);
    return file;
  }

  read(id: string): FleetIndex {
    const file = this.fileOf(id);
    if (lstatSync(dirname(file), { throwIfNoEntry: false })?.isSymbolicLink())
      throw new Error(
        `${dirname(file)} is a symbolic link; SDMA Lens reads fleets only from folders in ${this.root}, never through links`,
      );
    // No link, FIFO or device, at most the `fleet-index` cap of FILE_KINDS (safeFile.ts).
    const text = readSafeFileSync(file, 'fleet-index').toString('utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file} is not JSON: ${(err as Error).message}`);
    }
    const parsed = v.safeParse(FleetIndexSchema, raw);
    if (!parsed.success) throw new Error(`${file} is not a fleet index: ${parsed.issues[0]?.message ?? 'invalid'}`);
    return parsed.output;
  }

  /** Fleet ids, newest first (ids start with their time). */
  list(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return [];
    }
    const isFleet = (n: string) =>
      lstatSync(join(this.root, n), { throwIfNoEntry: false })?.isDirectory() === true &&
      lstatSync(join(this.root, n, FLEET_FILE), { throwIfNoEntry: false })?.isFile() === true;
    return names
      .filter((n) => /^[A-Za-z0-9._-]+$/.test(n) && isFleet(n))
      .sort()
      .reverse();
  }
}
