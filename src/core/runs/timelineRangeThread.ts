/**
 * A reader thread beside a host-held timeline's engine, in its process: the same bundle (dist/timelineEngine.js)
 * started with `workerData.role` 'ranges'. It surveys or bins (timelineOverview.ts) the ranges of
 * the file it takes from the claim it shares with the engine and the other readers, through the
 * engine's open descriptor (it opens nothing itself), and posts its part back. A third kind of
 * pass does both at once: it surveys its ranges and bins the page's first view in them.
 */
import { read } from 'node:fs';
import type { TimelineLayout } from '../timeline/timelineFile';
import type { LodRequest } from '../timeline/timelineLod';
import type { BinPart, BinPlan, OverviewSource, SurveyBinPart, SurveyPart } from '../timeline/timelineOverview';
import { binPart, binPartBuffers, sharedClaim, surveyAndBinPart, surveyPart } from '../timeline/timelineOverview';

/** Engine -> reader: a pass over the file open as `fd`, its ranges handed out by `claim`. */
export type ToRanges =
  | { type: 'survey'; fd: number; fileBytes: number; layout: TimelineLayout; claim: SharedArrayBuffer }
  | { type: 'bin'; fd: number; fileBytes: number; layout: TimelineLayout; plan: BinPlan; claim: SharedArrayBuffer }
  | {
      type: 'surveyAndBin';
      fd: number;
      fileBytes: number;
      layout: TimelineLayout;
      ahead: Omit<LodRequest, 'lanes'>;
      claim: SharedArrayBuffer;
    };

/** Reader -> engine: its part of the pass (null: the overview cannot answer, or cannot bin ahead), or why it failed. */
export type FromRanges =
  | { type: 'survey'; part: SurveyPart }
  | { type: 'bin'; part: BinPart | null }
  | { type: 'surveyAndBin'; part: SurveyBinPart | null }
  | { type: 'error'; message: string };

/** The part of a MessagePort the reader talks through. */
export interface RangesPort {
  on(event: 'message', listener: (message: ToRanges) => void): void;
  postMessage(message: FromRanges, transfer?: ArrayBuffer[]): void;
}

/** Positional reads of a descriptor another thread of this process opened. */
export function descriptorSource(fd: number, fileBytes: number): OverviewSource {
  return {
    fileBytes,
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) =>
        read(fd, buffer, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
      ),
  };
}

/** Serves passes on `port`, one at a time, as the engine asks. */
export function serveRanges(port: RangesPort): void {
  port.on('message', (message) => {
    void pass(message).catch((err: unknown) =>
      port.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  });

  async function pass(message: ToRanges): Promise<void> {
    const source = descriptorSource(message.fd, message.fileBytes);
    const claim = sharedClaim(message.claim);
    if (message.type === 'survey') {
      port.postMessage({ type: 'survey', part: await surveyPart(source, message.layout, claim) });
      return;
    }
    if (message.type === 'surveyAndBin') {
      const fused = await surveyAndBinPart(source, message.layout, message.ahead, claim);
      const buffers = fused ? [fused.binned.keys.buffer as ArrayBuffer, ...binPartBuffers(fused.binned.part)] : [];
      port.postMessage({ type: 'surveyAndBin', part: fused ?? null }, buffers);
      return;
    }
    const part = await binPart(source, message.layout, message.plan, claim);
    port.postMessage({ type: 'bin', part: part ?? null }, part ? binPartBuffers(part) : []);
  }
}
