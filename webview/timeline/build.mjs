// Builds the timeline panel: the level-of-detail worker first, as one script whose text is
// then compiled into the page's bundle (the page starts it from a blob: URL, the only way a
// VS Code webview can start a worker). Used by scripts/build.mjs, the browser tests and the
// benchmark, so all three run the same bundle.
import * as esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageCss } from '../../scripts/pageCss.mjs';

const here = dirname(fileURLToPath(import.meta.url));

export async function buildTimelineWebview({ outdir = resolve(here, '../../dist/webview'), production = false } = {}) {
  mkdirSync(outdir, { recursive: true });
  const worker = await esbuild.build({
    entryPoints: [join(here, 'worker.ts')],
    bundle: true,
    write: false,
    minify: production,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    logLevel: 'warning',
  });
  const workerSource = worker.outputFiles[0].text;
  await esbuild.build({
    entryPoints: { timeline: join(here, 'main.ts') },
    outdir,
    bundle: true,
    sourcemap: production ? false : 'linked',
    minify: production,
    legalComments: 'linked',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    define: { TIMELINE_WORKER_SOURCE: JSON.stringify(workerSource) },
  });
  pageCss(join(here, 'timeline.css'), join(outdir, 'timeline.css'));
}
