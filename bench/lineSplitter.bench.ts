/**
 * Line splitting of one long line: a 48 MiB line (and a 4 MiB one) fed to LineSplitter in
 * 64 KiB chunks, as a pipe delivers it. The reference in the same run does the same work the
 * plainest way: the same chunks decoded to text by a StringDecoder (UTF-8 split across chunks
 * handled), each split on '\n', a line's pieces joined; its result is checked equal to the
 * splitter's. Buffer.indexOf('\n') over the chunks (no decoding) is shown as the floor. The
 * splitter must stay linear: its time per MB at 48 MiB is about its time per MB at 4 MiB.
 */
import { StringDecoder } from 'node:string_decoder';
import { LineSplitter } from '../src/core/runs/lineSplitter';

const CHUNK = 64 * 1024;

function data(mb: number): Buffer {
  return Buffer.from(`{"type":"x","s":"${'µ'.repeat(1000)}${'x'.repeat(mb * 1024 * 1024 - 2020)}"}\n`, 'utf8');
}

let splitterLine = '';
let decodedLine = '';

function splitSeconds(bytes: Buffer): number {
  let n = 0;
  const s = new LineSplitter((line) => {
    n++;
    splitterLine = line;
  });
  const t0 = performance.now();
  for (let o = 0; o < bytes.length; o += CHUNK) s.push(bytes.subarray(o, o + CHUNK));
  s.end();
  if (n !== 1) throw new Error(`split ${n} lines, not 1`);
  return (performance.now() - t0) / 1000;
}

/** The fair reference: decode the same chunks, split on '\n', join a line's pieces. */
function decodeSplitSeconds(bytes: Buffer): number {
  let n = 0;
  const t0 = performance.now();
  const decoder = new StringDecoder('utf8');
  let parts: string[] = [];
  const take = (text: string) => {
    let start = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
      parts.push(text.slice(start, i));
      decodedLine = parts.join('');
      parts = [];
      n++;
      start = i + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  };
  for (let o = 0; o < bytes.length; o += CHUNK) take(decoder.write(bytes.subarray(o, o + CHUNK)));
  take(decoder.end());
  if (parts.length > 0) {
    decodedLine = parts.join('');
    n++;
  }
  if (n !== 1) throw new Error(`the reference split ${n} lines, not 1`);
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
    const ref = median([0, 1, 2, 3, 4].map(() => decodeSplitSeconds(bytes)));
    if (decodedLine !== splitterLine) throw new Error('the splitter and the reference read different lines');
    const floor = median([0, 1, 2, 3, 4].map(() => indexOfSeconds(bytes)));
    perMb.push(split / (bytes.length / 1e6));
    console.log(`line splitting, one ${mb} MiB line in 64 KiB chunks, median of 5`);
    console.log(
      `  LineSplitter (decode + scan + join):  ${mbps(bytes, split).toFixed(0)} MB/s (${(split * 1000).toFixed(1)} ms)`,
    );
    console.log(
      `  reference, StringDecoder + split:     ${mbps(bytes, ref).toFixed(0)} MB/s (${(ref * 1000).toFixed(1)} ms)`,
    );
    console.log(
      `  ratio LineSplitter / reference:       ${(mbps(bytes, split) / mbps(bytes, ref)).toFixed(3)} (speed; 1 = as fast)`,
    );
    console.log(`  floor, Buffer.indexOf (no decoding):  ${mbps(bytes, floor).toFixed(0)} MB/s`);
  }
  const growth = perMb[1]! / perMb[0]!;
  console.log(
    `  time per MB, 48 MiB / 4 MiB:          ${growth.toFixed(2)} (linear: about 1; target <= 2: ${growth <= 2 ? 'met' : 'NOT MET'})`,
  );
}

main();
