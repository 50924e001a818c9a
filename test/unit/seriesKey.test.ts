import { describe, expect, it } from 'vitest';
import {
  DEFAULT_THREADS_PER_CU,
  DIMENSION_COLUMNS,
  compareDimensions,
  dimensionCells,
  dimensionFields,
  dimensionWords,
  isDefaultDims,
  pairSeriesKey,
  seriesDimensions,
  seriesKey,
  waveWord,
} from '../../src/core/seriesKey';
import { sample } from '../support/records';

describe('seriesKey', () => {
  it('reads a sample without the new fields (a run saved before them) as the default series', () => {
    const old = sample({ mover: 'cu', initiator: 'device', cus: 64 });
    const d = seriesDimensions(old);
    expect(d).toEqual({
      path: 'cu/device',
      cus: 64,
      threads: DEFAULT_THREADS_PER_CU,
      split: 1,
      batch: 0,
      shmemSdma: 'forced',
    });
    expect(isDefaultDims(old)).toBe(true);
    expect(dimensionWords(old)).toEqual([]);
    expect(dimensionFields(old)).toEqual({});
  });

  it('tells apart every dimension: CUs, waves, split, batch, rocSHMEM SDMA mode, the runtime default', () => {
    const keys = new Set([
      seriesKey(sample({ mover: 'cu', cus: 8 })),
      seriesKey(sample({ mover: 'cu', cus: 16 })),
      seriesKey(sample({ mover: 'cu', cus: 8, wavesPerCu: 1, waveSize: 64 })),
      seriesKey(sample({ mover: 'cu', cus: 8, wavesPerCu: 4, waveSize: 64 })),
      seriesKey(sample({ mover: 'engine', cus: 0 })),
      seriesKey(sample({ mover: 'engine', cus: 0, split: 4, splitOver: 'engines' })),
      seriesKey(sample({ mover: 'engine', cus: 0, batch: 8 })),
      seriesKey(sample({ mover: 'engine', initiator: 'device', cus: 1 })),
      seriesKey(sample({ mover: 'engine', initiator: 'device', cus: 1, shmemSdma: 'off' })),
      seriesKey(sample({ mover: 'engine', initiator: 'device', cus: 1, shmemSdma: 'library' })),
      seriesKey(sample({ mover: 'engine', initiator: 'device', cus: 1, wavesPerCu: 2, waveSize: 64 })),
      seriesKey(sample({ mover: 'engine', cus: 0, series: 'runtime-default' })),
    ]);
    expect(keys.size).toBe(12);
  });

  it('keeps one series where only the reported engine CU count or the runtime mover differs', () => {
    expect(seriesKey(sample({ mover: 'engine', cus: 0 }))).toBe(seriesKey(sample({ mover: 'engine', cus: 1 })));
    // The runtime-default series is one curve whatever mover the runtime used at a size.
    const viaCu = sample({ mover: 'cu', cus: 64, series: 'runtime-default', sizeBytes: 4096 });
    const viaEngine = sample({ mover: 'engine', cus: 0, series: 'runtime-default', sizeBytes: 1 << 24 });
    expect(seriesKey(viaCu)).toBe(seriesKey(viaEngine));
    expect(seriesDimensions(viaCu).path).toBe('engine/host');
    // Dimensions that do not apply to a path are not part of its key.
    expect(seriesKey(sample({ mover: 'cu', cus: 8, batch: 4, split: 2, shmemSdma: 'off' }))).toBe(
      seriesKey(sample({ mover: 'cu', cus: 8 })),
    );
    expect(seriesKey(sample({ mover: 'engine', cus: 0, wavesPerCu: 4, waveSize: 64 }))).toBe(
      seriesKey(sample({ mover: 'engine', cus: 0 })),
    );
  });

  it("keeps rocSHMEM's puts at its own threshold (or with SDMA off) one engine/device curve whatever mover each size took", () => {
    const below = sample({ mover: 'cu', initiator: 'device', cus: 1, shmemSdma: 'library', sizeBytes: 128 });
    const above = sample({ mover: 'engine', initiator: 'device', cus: 1, shmemSdma: 'library', sizeBytes: 1 << 20 });
    expect(seriesKey(below)).toBe(seriesKey(above));
    expect(seriesDimensions(below).path).toBe('engine/device');
    const off = sample({ mover: 'cu', initiator: 'device', cus: 1, shmemSdma: 'off' });
    expect(seriesKey(off)).not.toBe(seriesKey(sample({ mover: 'cu', initiator: 'device', cus: 1 })));
    expect(seriesKey(off)).not.toBe(seriesKey(below));
    expect(isDefaultDims(off)).toBe(false);
  });

  it('counts threads: 16 wave64 per CU is the default 1024 threads, 32 warps too; waves without a size are wave64', () => {
    expect(seriesKey(sample({ wavesPerCu: 16, waveSize: 64 }))).toBe(seriesKey(sample()));
    expect(seriesKey(sample({ wavesPerCu: 32, waveSize: 32 }))).toBe(seriesKey(sample()));
    expect(seriesDimensions(sample({ wavesPerCu: 2 })).threads).toBe(128);
    expect(seriesDimensions(sample({ wavesPerCu: 2 })).waveSize).toBe(64);
  });

  it('puts the pair in pairSeriesKey only', () => {
    expect(pairSeriesKey(sample({ src: 0, dst: 1 }))).not.toBe(pairSeriesKey(sample({ src: 1, dst: 0 })));
    expect(seriesKey(sample({ src: 0, dst: 1 }))).toBe(seriesKey(sample({ src: 1, dst: 0 })));
  });

  it('words each dimension that is not the default', () => {
    expect(dimensionWords(sample({ wavesPerCu: 1, waveSize: 64 }))).toEqual(['1 wave/CU']);
    expect(dimensionWords(sample({ wavesPerCu: 4, waveSize: 32 }))).toEqual(['4 warps/CU']);
    expect(dimensionWords(sample({ mover: 'engine', initiator: 'device', wavesPerCu: 2, waveSize: 64 }))).toEqual([
      '2 waves issuing',
    ]);
    expect(dimensionWords(sample({ mover: 'engine', split: 4, splitOver: 'streams' }))).toEqual(['4 streams']);
    expect(dimensionWords(sample({ mover: 'engine', split: 4 }))).toEqual(['4 engines']);
    expect(dimensionWords(sample({ mover: 'engine', batch: 8 }))).toEqual(['batch of 8']);
    expect(dimensionWords(sample({ mover: 'engine', initiator: 'device', shmemSdma: 'off' }))).toEqual([
      'rocSHMEM SDMA off',
    ]);
    expect(dimensionWords(sample({ mover: 'engine', initiator: 'device', shmemSdma: 'library' }))).toEqual([
      "rocSHMEM's threshold",
    ]);
    expect(waveWord(64, 1)).toBe('1 wave');
    expect(waveWord(32, 2)).toBe('2 warps');
  });

  it('writes the export cells and the JSON fields of a series', () => {
    expect(DIMENSION_COLUMNS).toEqual(['waves per CU', 'wave size', 'split', 'split over', 'batch', 'rocSHMEM SDMA']);
    expect(dimensionCells(sample())).toEqual([null, null, 1, null, 0, null]);
    expect(dimensionCells(sample({ mover: 'engine', initiator: 'device' }))).toEqual([
      null,
      null,
      1,
      null,
      0,
      'forced',
    ]);
    expect(
      dimensionCells(
        sample({ mover: 'engine', initiator: 'device', split: 2, splitOver: 'channels', shmemSdma: 'off' }),
      ),
    ).toEqual([null, null, 2, 'channels', 0, 'off']);
    expect(dimensionCells(sample({ wavesPerCu: 4, waveSize: 64 }))).toEqual([4, 64, 1, null, 0, null]);
    expect(dimensionFields(sample({ mover: 'engine', batch: 16 }))).toEqual({ batch: 16 });
    expect(dimensionFields(sample({ wavesPerCu: 4, waveSize: 32 }))).toEqual({ wavesPerCu: 4, waveSize: 32 });
  });

  it('orders series by path, own before the runtime default, CUs, threads, split, batch and mode', () => {
    const list = [
      sample({ mover: 'engine', initiator: 'device', shmemSdma: 'off' }),
      sample({ mover: 'engine', series: 'runtime-default' }),
      sample({ mover: 'engine', batch: 4 }),
      sample({ mover: 'engine', split: 2 }),
      sample({ mover: 'engine' }),
      sample({ mover: 'cu', cus: 64 }),
      sample({ mover: 'cu', cus: 8 }),
      sample({ mover: 'cu', cus: 8, wavesPerCu: 1, waveSize: 64 }),
      sample({ mover: 'engine', initiator: 'device' }),
    ].map(seriesDimensions);
    const words = list
      .sort(compareDimensions)
      .map((d) => [d.path, d.series ?? '', d.cus, ...dimensionWords(d)].join(' '));
    expect(words).toEqual([
      'cu/host  8 1 wave/CU',
      'cu/host  8',
      'cu/host  64',
      'engine/host  0',
      'engine/host  0 batch of 4',
      'engine/host  0 2 engines',
      'engine/host runtime-default 0',
      'engine/device  0',
      'engine/device  0 rocSHMEM SDMA off',
    ]);
  });
});
