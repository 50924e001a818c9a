import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectKernels, maskSource } from '../../src/core/kernels/detect';

const shapes = readFileSync(join(__dirname, '../fixtures/kernels/shapes.hip'), 'utf8');

describe('kernel detection', () => {
  const found = detectKernels(shapes);
  const byName = new Map(found.map((k) => [k.name, k]));

  it('finds every real kernel, in order, and nothing in comments, strings or #if 0', () => {
    expect(found.map((k) => k.qualifiedName)).toEqual([
      'enabled_by_else',
      'simple',
      'bounded',
      'templated_copy',
      'c_linkage',
      'sdma::detail::in_namespace',
      'sdma::declared_only',
      'a::b::cxx17_nested',
    ]);
  });

  it('points at the name, so a lens lands on the right line', () => {
    for (const k of found) expect(shapes.slice(k.nameOffset, k.nameOffset + k.name.length)).toBe(k.name);
    const line = (offset: number) => shapes.slice(0, offset).split('\n').length;
    expect(line(byName.get('templated_copy')!.nameOffset)).toBe(line(shapes.indexOf('templated_copy(')));
  });

  it('records templates, launch bounds and declarations', () => {
    expect(byName.get('templated_copy')?.templated).toBe(true);
    expect(byName.get('simple')?.templated).toBe(false);
    expect(byName.get('bounded')?.launchBounds).toBe('256, 2');
    expect(byName.get('declared_only')?.isDefinition).toBe(false);
    expect(byName.get('simple')?.isDefinition).toBe(true);
  });

  it('keeps offsets and line breaks when masking', () => {
    const text = 'a /* x\ny */ "s\\"q" // c\n#define X 1\nb';
    const masked = maskSource(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n').length).toBe(text.split('\n').length);
    expect(masked.replace(/\s+/g, '')).toBe('ab');
  });

  it('keeps offsets exact around characters outside the BMP', () => {
    const text = '// 🚀 fast\n__global__ void k() {}\n';
    const [k] = detectKernels(text);
    expect(text.slice(k!.nameOffset, k!.nameOffset + 1)).toBe('k');
  });

  it('handles a large file (every copy of every kernel found once)', () => {
    const big = shapes.repeat(400);
    expect(detectKernels(big)).toHaveLength(found.length * 400);
  });
});
