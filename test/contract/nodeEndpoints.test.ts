/**
 * What the sweep quick pick offers and says (src/core/runtime/nodeInfo.ts: nodePairs, endpointsText),
 * from the topology the real helper's `info` prints for nodes of 1, 2 and 0 GPUs.
 */
import { describe, expect, it } from 'vitest';
import { pairArg } from '../../src/core/endpoints';
import { endpointsText, nodeDefaultPairs, nodePairs } from '../../src/core/runtime/nodeInfo';
import type { HelperRecord, Topology } from '../../src/core/protocol';
import { helper, records } from './run';

const topologyOf = (rs: HelperRecord[]) => rs.find((r): r is Topology => r.type === 'topology')!;

describe('the endpoints a node offers', () => {
  it('one GPU: host and GPU 0 in every direction, the default preselected', () => {
    const topology = topologyOf(records(helper(['info', '--backend', 'sim', '--sim-gpus', '1'])));
    expect(nodePairs(topology).map(pairArg)).toEqual(['host:0', '0:host', '0:0']);
    expect(nodeDefaultPairs(topology).map(pairArg)).toEqual(['host:0', '0:host', '0:0']);
    expect(endpointsText([], topology)).toBe('node default: host → GPU 0, GPU 0 → host, GPU 0 local');
  });

  it('two GPUs: the GPU pairs first, then host and local copies of each; the default stays GPU 0 → GPU 1', () => {
    const topology = topologyOf(records(helper(['info', '--backend', 'sim', '--sim-gpus', '2'])));
    expect(nodePairs(topology).map(pairArg)).toEqual([
      '0:1',
      '1:0',
      'host:0',
      '0:host',
      '0:0',
      'host:1',
      '1:host',
      '1:1',
    ]);
    expect(endpointsText([], topology)).toBe('node default: GPU 0 → GPU 1');
    expect(endpointsText([{ src: -1, dst: 1 }], topology)).toBe('host → GPU 1');
  });

  it('no GPU (a GPU backend on this machine): nothing to pair, and the text says so', () => {
    const empty: Topology = {
      type: 'topology',
      node: { name: 'n', vendor: 'nvidia', model: 'no NVIDIA GPU visible', simulated: false },
      gpus: [],
      links: [],
      libraries: [],
    };
    expect(nodePairs(empty)).toEqual([]);
    expect(endpointsText([], empty)).toBe('node default: none (no GPU)');
  });
});
