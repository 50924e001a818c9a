#!/usr/bin/env node
// The package as users get it: the VSIX of `npm run package`, installed with VS Code's own
// CLI into a fresh extensions folder, loaded by the VS Code server of
// scripts/vscode/provision.mjs as an installed extension (no development path), in headless
// Chromium. Opens a copy of examples/hip-sample, runs "SDMA Lens: Run Transfer Sweep" from the
// command palette, waits for the first sample in the panel, and checks from the extension's
// log that the helper was the packaged one (bundled, inside the installed extension) and that
// nothing was built.
//
//   --vsix FILE   the package to test (default: sdma-lens-<target>-<version>.vsix, made with
//                 `npm run package` when it is missing or older than the sources)
//   --out DIR     screenshots (default .vscode-test/artifacts/vsix)
//   --json FILE   also write {passed, failed, skipped, seconds} for scripts/test.mjs
// Functions passed to evaluate() run in the browser, hence the browser globals.
/* global document */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { checkBrowser, provision, serverVersion } from '../../scripts/vscode/provision.mjs';
import { openBrowser, startServer, workbenchUrl } from '../../scripts/vscode/server.mjs';
import {
  assert,
  openSampleWorkspace,
  runCommand,
  runSweepFromPalette,
  until,
} from '../../scripts/vscode/workbench.mjs';
import { root, runChecks, sampleWorkspace, valueOf } from '../support/workbenchScript.mjs';

const outDir = valueOf('--out') ?? join(root, '.vscode-test', 'artifacts', 'vsix');

function newestSource() {
  let newest = 0;
  const walk = (p) => {
    const s = statSync(p);
    if (s.isDirectory()) {
      for (const e of readdirSync(p))
        if (e !== 'build' && e !== 'build-package' && !e.startsWith('.')) walk(join(p, e));
    } else newest = Math.max(newest, s.mtimeMs);
  };
  for (const p of ['src', 'webview', 'native', 'package.json', '.vscodeignore', 'README.md'])
    if (existsSync(join(root, p))) walk(join(root, p));
  return newest;
}

/** The VSIX to test: --vsix, or a fresh `npm run package`. */
function vsixFile() {
  const given = valueOf('--vsix');
  if (given) {
    if (!existsSync(given)) throw new Error(`${given} does not exist`);
    return given;
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const target = `${platform()}-${arch()}`;
  const file = join(root, `${pkg.name}-${target}-${pkg.version}.vsix`);
  if (existsSync(file) && statSync(file).mtimeMs >= newestSource()) {
    console.log(`  using ${file} (newer than the sources)`);
    return file;
  }
  console.log('  npm run package (the VSIX is missing or older than the sources)');
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0)
    throw new Error(`npm run package failed (exit ${r.status})\n${(r.stdout ?? '').split('\n').slice(-20).join('\n')}`);
  return file;
}

function filesUnder(dir, test) {
  const found = [];
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (test(p)) found.push(p);
    }
  };
  walk(dir);
  return found;
}

async function main() {
  return runChecks(
    { name: 'vsix', outDir, tmpPrefix: 'sdma-lens-vsix-', skipped: 0, note: ` (screenshots: ${outDir})` },
    async ({ check, tmp, held }) => {
      const vsix = vsixFile();
      const { node, serverMain } = provision();
      checkBrowser();
      mkdirSync(outDir, { recursive: true });
      const extensionsDir = join(tmp, 'extensions');
      mkdirSync(extensionsDir);
      const workspace = sampleWorkspace(tmp);
      let installed;

      await check("the VSIX installs with VS Code's own CLI into a fresh extensions folder", async () => {
        const t0 = performance.now();
        const r = spawnSync(
          node,
          [serverMain, '--install-extension', vsix, '--extensions-dir', extensionsDir, '--accept-server-license-terms'],
          { encoding: 'utf8', env: { ...process.env, VSCODE_AGENT_FOLDER: join(tmp, 'agent') } },
        );
        const ms = performance.now() - t0;
        assert(r.status === 0, `--install-extension failed (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
        const dirs = readdirSync(extensionsDir).filter((d) => d.startsWith('sdma-lens.sdma-lens-'));
        assert(dirs.length === 1, `installed folders: ${readdirSync(extensionsDir).join(', ')}`);
        installed = join(extensionsDir, dirs[0]);
        const probe = join(installed, 'bin', 'sdma-probe');
        assert(existsSync(probe), `${probe} is not installed`);
        assert((statSync(probe).mode & 0o111) !== 0, `${probe} is not executable after install`);
        console.log(`    install: ${(ms / 1000).toFixed(1)} s -> ${installed}`);
      });

      await check('the package holds no test sources, and its size is the one the README gives', async () => {
        const tests = filesUnder(installed, (p) =>
          /[/\\]tests?[/\\]|[/\\]fixtures[/\\]|_test\.(c|cc|cpp|hpp|cu|hip|cmake)$|\.test\.(ts|js|mjs)$/.test(
            p.slice(installed.length),
          ),
        );
        assert(
          tests.length === 0,
          `test sources in the package: ${tests.map((p) => p.slice(installed.length + 1)).join(', ')}`,
        );
        const readme = readFileSync(join(root, 'README.md'), 'utf8');
        const said = /It is about ([\d.]+) MiB/.exec(readme);
        assert(said, 'the README no longer says the package size ("It is about N MiB")');
        const mib = statSync(vsix).size / 2 ** 20;
        assert(
          Math.abs(mib - Number(said[1])) <= 0.1,
          `the README says about ${said[1]} MiB; ${vsix} is ${mib.toFixed(2)} MiB`,
        );
        console.log(
          `    ${mib.toFixed(2)} MiB (README: about ${said[1]} MiB), no test sources in ${filesUnder(installed, () => true).length} files`,
        );
      });

      const server = await startServer({
        node,
        serverMain,
        extensionsDir,
        settings: { 'sdmaLens.defaultBackend': 'sim', 'workbench.colorTheme': 'Default Dark Modern' },
        log: (l) => console.log(l),
      });
      held.server = server;
      console.log(`> the installed package in VS Code ${serverVersion(serverMain)} (server) + headless Chromium`);
      held.browser = await openBrowser({ viewport: { width: 1400, height: 900 } });
      const { page } = held.browser;

      await check('the sample workspace opens with the installed extension', async () => {
        await openSampleWorkspace(page, workbenchUrl(server.origin, { folder: workspace }));
      });

      let firstSampleSeconds;
      await check('Run Transfer Sweep shows its first sample, with no build', async () => {
        await runSweepFromPalette(page);
        const t0 = performance.now();
        const frame = await until(
          'the sweep panel',
          async () => {
            for (const f of page.frames()) {
              if (f === page.mainFrame()) continue;
              if (
                (await f
                  .locator('.data-table tbody tr')
                  .count()
                  .catch(() => 0)) > 0
              )
                return f;
            }
            return undefined;
          },
          60_000,
        );
        firstSampleSeconds = (performance.now() - t0) / 1000;
        assert((await frame.locator('.simulated-badge').count()) > 0, 'the panel has no SIMULATED badge');
        console.log(`    first sample ${firstSampleSeconds.toFixed(1)} s after the quick pick was accepted`);
        await page.mouse.move(0, 0);
        await page.screenshot({ path: join(outDir, 'vsix-sweep.png') });
      });

      await check(
        "the extension's log names the packaged helper (bundled, in the installed extension) and no build",
        async () => {
          const logs = await until(
            'the SDMA Lens log',
            async () => {
              const found = filesUnder(server.tmp, (p) => p.endsWith('.log') && /sdma[- ]lens/i.test(p)).filter((p) =>
                /helper /.test(readFileSync(p, 'utf8')),
              );
              return found.length > 0 ? found : undefined;
            },
            15_000,
          );
          const text = logs.map((p) => readFileSync(p, 'utf8')).join('\n');
          const line = text.split('\n').find((l) => /\bhelper \S+ \(/.test(l));
          const expected = join(installed, 'bin', 'sdma-probe');
          assert(
            line?.includes(`helper ${expected} (bundled,`),
            `log line: ${line}\nexpected the helper ${expected} (bundled)`,
          );
          const built = text.split('\n').filter((l) => /\[build\]|Configuring the helper|Compiling the helper/.test(l));
          assert(built.length === 0, `a build happened:\n${built.slice(0, 5).join('\n')}`);
          const storage = filesUnder(server.tmp, (p) => /\/helper-[^/]*\/sdma-probe$/.test(p));
          assert(storage.length === 0, `a helper was built into storage: ${storage.join(', ')}`);
          console.log(`    ${line.trim()}`);
        },
      );

      await check(
        "the extension's details page keeps the README images (https links to the repository's files)",
        async () => {
          await page.keyboard.press('Escape');
          await runCommand(page, 'Extensions: Show Installed Extensions');
          const row = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'SDMA Lens' }).first();
          await row.waitFor({ state: 'visible', timeout: 30_000 });
          await row.click();
          // The page drops image sources it will not load (relative, file:, data:): the README's
          // screenshots, found by their alt text, must keep an https source naming a file of this
          // repository. Whether it loads depends on reaching the repository's host.
          const repo = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).repository.url.replace(
            /\.git$/,
            '',
          );
          const readmeImage = /^The (sweep panel|timeline)/;
          let seen = [];
          const images = await until(
            'the README images in the details page',
            async () => {
              for (const f of page.frames()) {
                if (f === page.mainFrame()) continue;
                const found = await f
                  .evaluate(
                    (pattern) =>
                      [...document.querySelectorAll('img')]
                        .filter((i) => new RegExp(pattern).test(i.alt))
                        .map((i) => ({
                          alt: i.alt.slice(0, 40),
                          src: i.getAttribute('src') ?? '',
                          loaded: i.complete && i.naturalWidth > 0,
                        })),
                    readmeImage.source,
                  )
                  .catch(() => []);
                if (found.length > 0) seen = found;
                if (found.length >= 2 && found.every((i) => i.src !== '')) return found;
              }
              return undefined;
            },
            30_000,
          ).catch((err) => {
            throw new Error(`${err.message}; images seen: ${JSON.stringify(seen)}`);
          });
          for (const i of images) {
            const prefix = `${repo}/raw/HEAD/`;
            assert(i.src.startsWith(prefix), `image source ${i.src} is not under ${prefix}`);
            const file = i.src.slice(prefix.length);
            assert(existsSync(join(root, file)), `image ${file} is not in the repository`);
          }
          console.log(
            `    ${images.length} README images kept: ${images.map((i) => `${i.src} (${i.loaded ? 'loaded' : 'not loaded: the repository host is not reachable from here'})`).join('; ')}`,
          );
          await page.screenshot({ path: join(outDir, 'vsix-details.png') });
        },
      );
    },
  );
}

process.exit(await main());
