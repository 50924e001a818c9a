/** Entry of the trusted launch: the sample workspace, Workspace Trust off (everything trusted). */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { runMocha } from './mocha';

/** Every suite but the untrusted one, which needs its own launch; the basics first. */
const FIRST = ['activation', 'sweep', 'cancel', 'crash'];

export function run(): Promise<void> {
  const found = readdirSync(path.join(__dirname, 'suite'))
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => f.slice(0, -'.test.js'.length))
    .filter((name) => name !== 'untrusted');
  return runMocha('trusted', [
    ...FIRST.filter((n) => found.includes(n)),
    ...found.filter((n) => !FIRST.includes(n)).sort(),
  ]);
}
