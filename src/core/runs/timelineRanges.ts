/**
 * The engine's reader threads of a timeline's ranges (timelineRangeThread.ts): started when the
 * file is opened, so that they are up by the time a pass starts; each pass is shared by them and
 * the engine itself through one claim, and resolves to every reader's part. A reader that fails,
 * exits or answers with an error makes the pass resolve to undefined: the engine then does the
 * pass alone (a part that is missing is never merged as if it were whole).
 */
import type { TimelineLayout } from '../timeline/timelineFile';
import type { LodRequest } from '../timeline/timelineLod';
import type { BinPart, BinPlan, ChunkClaim, SurveyBinPart, SurveyPart } from '../timeline/timelineOverview';
import { sharedClaim } from '../timeline/timelineOverview';
import type { FromRanges, ToRanges } from './timelineRangeThread';

/** The part of a worker_threads Worker the readers are driven through (a test may hand a stand-in). */
export interface RangeReader {
  on(event: 'message', listener: (message: FromRanges) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: ToRanges): void;
  terminate(): Promise<number>;
}

/** The file as the readers reach it: the engine's open descriptor and its size. */
export interface RangeFile {
  fd: number;
  fileBytes: number;
  layout: TimelineLayout;
}

export class RangeReaders {
  private readonly readers: RangeReader[] = [];
  private readonly waiting = new Map<RangeReader, (answer: FromRanges | undefined) => void>();
  private broken = false;

  constructor(start: () => RangeReader, count: number) {
    for (let i = 0; i < count; i++) {
      let reader: RangeReader;
      try {
        reader = start();
      } catch {
        this.broken = true;
        break;
      }
      const settle = (answer: FromRanges | undefined) => {
        const resolve = this.waiting.get(reader);
        this.waiting.delete(reader);
        resolve?.(answer);
      };
      reader.on('message', (message) => settle(message));
      reader.on('error', () => {
        this.broken = true;
        settle(undefined);
      });
      reader.on('exit', () => {
        this.broken = true;
        settle(undefined);
      });
      this.readers.push(reader);
    }
  }

  /** How many readers share a pass with the engine (0 once any has failed). */
  get size(): number {
    return this.broken ? 0 : this.readers.length;
  }

  /** The survey shared: every part (the engine's own last), or undefined when a reader failed. */
  async survey(file: RangeFile, own: (claim: ChunkClaim) => Promise<SurveyPart>): Promise<SurveyPart[] | undefined> {
    const parts = await this.pass((claim) => ({ type: 'survey', ...file, claim }), own);
    if (!parts) return undefined;
    const theirs = parts.theirs.map((a) => (a?.type === 'survey' ? a.part : undefined));
    return theirs.every((p) => p !== undefined) ? [...(theirs as SurveyPart[]), parts.own] : undefined;
  }

  /**
   * The overview's binning shared: every part (the engine's own last; an undefined part means the
   * overview cannot answer), or undefined when a reader failed.
   */
  async bin(
    file: RangeFile,
    plan: BinPlan,
    own: (claim: ChunkClaim) => Promise<BinPart | undefined>,
  ): Promise<(BinPart | undefined)[] | undefined> {
    const parts = await this.pass((claim) => ({ type: 'bin', ...file, plan, claim }), own);
    if (!parts || parts.theirs.some((a) => a?.type !== 'bin')) return undefined;
    return [...parts.theirs.map((a) => (a?.type === 'bin' ? (a.part ?? undefined) : undefined)), parts.own];
  }

  /**
   * The pass that both surveys and bins the page's first view, shared: every part (the engine's
   * own last; an undefined part means that reader could not bin ahead), or undefined when a
   * reader failed.
   */
  async surveyAndBin(
    file: RangeFile,
    ahead: Omit<LodRequest, 'lanes'>,
    own: (claim: ChunkClaim) => Promise<SurveyBinPart | undefined>,
  ): Promise<(SurveyBinPart | undefined)[] | undefined> {
    const parts = await this.pass((claim) => ({ type: 'surveyAndBin', ...file, ahead, claim }), own);
    if (!parts || parts.theirs.some((a) => a?.type !== 'surveyAndBin')) return undefined;
    return [...parts.theirs.map((a) => (a?.type === 'surveyAndBin' ? (a.part ?? undefined) : undefined)), parts.own];
  }

  /** Stops every reader. */
  dispose(): void {
    this.broken = true;
    for (const reader of this.readers) void reader.terminate();
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }

  private async pass<T>(
    message: (claim: SharedArrayBuffer) => ToRanges,
    own: (claim: ChunkClaim) => Promise<T>,
  ): Promise<{ theirs: (FromRanges | undefined)[]; own: T } | undefined> {
    if (this.size === 0) return undefined;
    const shared = new SharedArrayBuffer(4);
    const theirs = this.readers.map(
      (reader) =>
        new Promise<FromRanges | undefined>((resolve) => {
          this.waiting.set(reader, resolve);
          reader.postMessage(message(shared));
        }),
    );
    const mine = await own(sharedClaim(shared));
    const answers = await Promise.all(theirs);
    if (this.broken || answers.some((a) => a === undefined || a.type === 'error')) return undefined;
    return { theirs: answers, own: mine };
  }
}
