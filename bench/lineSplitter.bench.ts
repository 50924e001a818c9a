/**
 * Line splitting of one long line: a 48 MiB line (and a 4 MiB one) fed to LineSplitter in
 * 64 KiB chunks, as a pipe delivers it. Reference in the same run: Buffer.indexOf('\n') over
 * the same chunks, the least any splitter must do. The splitter must stay linear: its time
 * per MB at 48 MiB is about its time per MB at 4 MiB.
 */
import { LineSplitter } from '../src/core/runs/lineSplitter';

const CHUNK = 64 * 1024;

function data(mb: number): Buffer {
  return Buffer.from(`{"type":"x","s":"${'µ'.repeat(1000)}${'x'.repeat(mb * 1024 * 1024 - 2020)}"}\n`, 'utf8');
}

function splitSeconds(bytes: Buffer): number {
  let n = 0;
  const s = new LineSplitter(() => n++);
  const t0 = performance.now();
  for (let o = 0; o < bytes.length; o += CHUNK) s.push(bytes.subarray(o, o + CHUNK));
  s.end();
  if (n !== 1) throw new Error(`split ${n} lines, not 1`);
  return (performance.now() - t0) / 1000;
}

function indexOfSeconds(bytes: Buffer): number {
  let n = 0;
  const t0 = performance.now();
  for (let o = 0; o < bytes.length; o += CHUNK) if (bytes.subarray(o, o + CHUNK).indexOf(10) !== -1) n++;
  if (n !== 1) throw new Error(`found ${n} newlines, not 1`);
  return (performance.now() - t0) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mbps = (bytes: Buffer, seconds: number) => bytes.length / 1e6 / seconds;

function main() {
  const perMb: number[] = [];
  for (const mb of [4, 48]) {
    const bytes = data(mb);
    splitSeconds(bytes);
    const split = median([0, 1, 2, 3, 4].map(() => splitSeconds(bytes)));
    const ref = median([0, 1, 2, 3, 4].map(() => indexOfSeconds(bytes)));
    perMb.push(split / (bytes.length / 1e6));
    console.log(`line splitting, one ${mb} MiB line in 64 KiB chunks, median of 5`);
    console.log(
      `  LineSplitter (decode + scan + join):  ${mbps(bytes, split).toFixed(0)} MB/s (${(split * 1000).toFixed(1)} ms)`,
    );
    console.log(`  reference, Buffer.indexOf:            ${mbps(bytes, ref).toFixed(0)} MB/s`);
    console.log(`  ratio LineSplitter / indexOf:         ${(mbps(bytes, split) / mbps(bytes, ref)).toFixed(3)}`);
  }
  const growth = perMb[1]! / perMb[0]!;
  console.log(
    `  time per MB, 48 MiB / 4 MiB:          ${growth.toFixed(2)} (linear: about 1; target <= 2: ${growth <= 2 ? 'met' : 'NOT MET'})`,
  );
}

main();
