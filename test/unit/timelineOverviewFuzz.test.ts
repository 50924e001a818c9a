/**
 * The overview's readers (timelineOverview.ts: the survey and the binning a range of events at a
 * time, and the survey that bins the first view as it goes) against the hostile files the
 * whole-file reader is fuzzed with: each must refuse exactly the files readTimelineFile refuses,
 * with a TimelineFormatError and nothing else, and on a file all accept it must lay out the
 * index the built one does and keep every count the built level of detail keeps.
 */
import { describe, expect, it } from 'vitest';
import type { ReadAt, TimelineColumns } from '../../src/core/timeline/timelineFile';
import { TimelineFormatError, readTimelineFile } from '../../src/core/timeline/timelineFile';
import { aggregate } from '../../src/core/timeline/timelineLod';
import { buildIndexAndLod, columnsFromEvents } from '../../src/core/timeline/timelineModel';
import {
  answerAhead,
  mergeSurvey,
  overviewLod,
  readLayout,
  surveyAndBin,
  surveyTimeline,
  timelineSpan,
} from '../../src/core/timeline/timelineOverview';
import { fitAllWindow, lodWindow } from '../../src/core/timeline/timelineView';
import { AMD_ENGINE_DEVICE, EVENTS, sdmatlBytes } from './timelineFixture';
import { mutate, rng } from './timelineMutations';

const MUTATIONS = 2_000;
const META = { gpuCus: [64], vendor: 'amd' as const };

function source(bytes: Uint8Array) {
  const read: ReadAt = async (buffer, offset, length, position) => {
    const part = bytes.subarray(position, Math.min(bytes.length, position + length));
    buffer.set(part, offset);
    return part.length;
  };
  return { fileBytes: bytes.length, read };
}

async function refusedOr<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof TimelineFormatError)) throw err;
    return undefined;
  }
}

describe('the overview on hostile files', () => {
  const seeds = [
    sdmatlBytes(columnsFromEvents(EVENTS), 1),
    sdmatlBytes(columnsFromEvents(EVENTS), 2),
    sdmatlBytes(columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]), 2),
    sdmatlBytes(columnsFromEvents([]), 2),
  ];

  it(`${MUTATIONS} mutations: refused as the whole-file reader refuses them, or the built index's layout and counts`, async () => {
    const pick = rng(0x0e71);
    let accepted = 0;
    let aheadAnswered = 0;
    for (let k = 0; k < MUTATIONS; k++) {
      const data = mutate(seeds[pick(seeds.length)]!, seeds, pick);
      let columns: TimelineColumns | undefined;
      try {
        columns = readTimelineFile(data.slice());
      } catch (err) {
        if (!(err instanceof TimelineFormatError)) throw err;
      }
      const src = source(data);
      // The survey checks the columns it reads; the binning, which reads every column, the rest.
      const survey = await refusedOr(() => surveyTimeline(src, META));
      const request = survey && {
        startNs: survey.index.startNs,
        endNs: survey.index.endNs,
        buckets: 97,
        lanes: [...survey.index.lanes.keys(), ...survey.index.heat.map((h) => h.id)],
      };
      const answer = survey && request && (await refusedOr(() => overviewLod(src, survey, request)));
      expect(answer === undefined, `mutation ${k}: the overview and the reader disagree`).toBe(columns === undefined);
      // The survey that bins the first view as it goes (its span read first) refuses alike.
      const fused = await refusedOr(async () => {
        const layout = await readLayout(src);
        const span = await timelineSpan(src, layout);
        const whole = fitAllWindow(span.minStart, span.maxEnd);
        const ahead = { ...lodWindow(whole.from, whole.to), buckets: 97, rawMinPx: 2 };
        return { layout, ahead, ...(await surveyAndBin(src, layout, ahead)) };
      });
      expect(fused === undefined, `mutation ${k}: the survey ahead and the reader disagree`).toBe(
        columns === undefined,
      );
      if (!survey || !request || !answer || !columns || !fused) continue;
      accepted++;
      const built = buildIndexAndLod(columns, META, true, true);
      const { count, lanes, laneStart, startNs, endNs, heat } = built.index;
      expect(survey.index).toEqual({ count, lanes, laneStart, startNs, endNs, heat });
      const expected = aggregate(built.lod!, built.index, request);
      expect(answer!.result.totals.count).toEqual(expected.totals.count);
      expect(answer!.result.raw).toEqual(expected.raw);
      for (const x of answer!.result.runs.busyNs) expect(Number.isFinite(x)).toBe(true);
      const ahead = mergeSurvey(fused.layout, [fused.survey], META, 0);
      expect(ahead.index).toEqual(survey.index);
      expect(ahead.inferred).toBe(survey.inferred);
      if (!fused.binned || count === 0) continue;
      const first = { ...fused.ahead, lanes: request.lanes };
      const binned = answerAhead(ahead, [fused.binned], first);
      if (!binned) continue;
      aheadAnswered++;
      const whole = aggregate(built.lod!, built.index, first);
      expect(binned.result.totals.count).toEqual(whole.totals.count);
      expect(binned.result.raw).toEqual(whole.raw);
      expect(binned.result.runs.count).toEqual(whole.runs.count);
    }
    expect(aheadAnswered).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(MUTATIONS);
  });
});
