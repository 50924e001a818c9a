/** Entry of the untrusted launch: Workspace Trust on, the folder never trusted (Restricted Mode). */
import { runMocha } from './mocha';

export function run(): Promise<void> {
  return runMocha('untrusted', ['untrusted']);
}
