/**
 * The layer rules (src/core/layers.json) hold: every import of src/ and webview/ is one its
 * folder may make, no two folders import each other (directly or around a ring), the rules
 * allow no cycle themselves, and the texts written from them (the layer table of
 * docs/ARCHITECTURE.md, webview/tsconfig.json's include list) are current.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// prettier-ignore
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { DOC_FILE, ROOT, WEBVIEW_TSCONFIG, browserSafeGlobs, checkLayers, checkRules, layerOf, loadLayers, webviewIncludes, withDocsTable } from '../../scripts/layers.mjs';

interface Layer {
  folder: string;
  line: string;
  mayImport: string[];
  browserSafe: boolean;
}

const layers = loadLayers() as Layer[];

describe('layer rules', () => {
  it('every import of src/ and webview/ is one the rules allow, and no folders import each other', () => {
    const { violations, cycles } = checkLayers() as { violations: string[]; cycles: string[] };
    expect([...violations, ...cycles.map((c) => `folder cycle: ${c}`)]).toEqual([]);
  });

  it('the rules name only their own folders and allow no cycle', () => {
    expect(checkRules(layers)).toEqual([]);
  });

  it("puts a file in its folder's layer: a core folder whole, the core root its own files only", () => {
    expect(layerOf(layers, 'src/core/run.ts')).toBe('src/core');
    expect(layerOf(layers, 'src/core/sweep/sweepView.ts')).toBe('src/core/sweep');
    expect(layerOf(layers, 'src/extension/commands/runSweep.ts')).toBe('src/extension');
    expect(layerOf(layers, 'webview/timeline/main.ts')).toBe('webview');
    expect(layerOf(layers, 'src/core/nowhere/x.ts')).toBeUndefined();
  });

  it('names the browser-safe code by folder: the core root and whole folders, one glob for the folders', () => {
    const globs = browserSafeGlobs(layers) as string[];
    expect(globs[0]).toBe('src/core/*.ts');
    expect(globs).toHaveLength(2);
    expect(layers.find((l) => l.folder === 'src/core/runs')?.browserSafe).toBe(false);
  });

  it('webview/tsconfig.json type-checks exactly the browser-safe core (node scripts/layers.mjs writes it)', () => {
    const config = JSON.parse(readFileSync(join(ROOT, WEBVIEW_TSCONFIG), 'utf8')) as { include: string[] };
    expect(config.include).toEqual(webviewIncludes(layers));
  });

  it("docs/ARCHITECTURE.md's layer table is the rules' (node scripts/layers.mjs writes it)", () => {
    const doc = readFileSync(join(ROOT, DOC_FILE), 'utf8');
    expect(withDocsTable(doc, layers)).toBe(doc);
  });

  it('the may-import column lists no more folder pairs than it did (36 before the rules were written down)', () => {
    const cells = layers.filter((l) => l.folder.startsWith('src/core')).reduce((n, l) => n + l.mayImport.length, 0);
    expect(cells).toBeLessThanOrEqual(36);
  });
});
