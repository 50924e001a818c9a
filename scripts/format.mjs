// The tree's one layout: Prettier for TypeScript and JavaScript (.prettierrc.json), clang-format
// 19 for the helper's C++ (.clang-format), both pinned (package.json; Debian's clang-format-19).
//   npm run format             rewrites every tracked source in place
//   node scripts/format.mjs --check   lists what is not formatted, exit 1 if anything is
// A missing clang-format-19 is said in a line starting "skip" (npm test counts it as skipped,
// CI as failed: the package is in scripts/check/prerequisites.mjs).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const CLANG_FORMAT = 'clang-format-19';

function tracked(patterns) {
  const r = spawnSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  return r.stdout.split('\0').filter((f) => f.length > 0);
}

/** Runs the command on the files in batches (command lines stay short); returns its outputs and worst status. */
function inBatches(command, args, files) {
  let status = 0;
  let output = '';
  for (let i = 0; i < files.length; i += 200) {
    const r = spawnSync(command, [...args, ...files.slice(i, i + 200)], { cwd: root, encoding: 'utf8' });
    if (r.error) return { status: -1, output: String(r.error.message) };
    output += (r.stdout ?? '') + (r.stderr ?? '');
    status = Math.max(status, r.status ?? 1);
  }
  return { status, output };
}

let failed = false;

// Prettier reads .prettierignore for what it leaves alone.
const scripts = tracked(['*.ts', '*.mts', '*.mjs', '*.js']);
// Writing twice: Prettier settles a few comment placements only on its second pass.
if (!check)
  inBatches(process.execPath, ['node_modules/prettier/bin/prettier.cjs', '--write', '--log-level', 'warn'], scripts);
const prettier = inBatches(
  process.execPath,
  ['node_modules/prettier/bin/prettier.cjs', ...(check ? ['--list-different'] : ['--write', '--log-level', 'warn'])],
  scripts,
);
if (check && prettier.status !== 0) {
  const files = prettier.output.trim().split('\n').filter(Boolean);
  console.log(`FAIL prettier: ${files.length} file(s) not formatted (npm run format):\n  ${files.join('\n  ')}`);
  failed = true;
} else if (prettier.status !== 0) {
  console.log(`FAIL prettier: ${prettier.output.trim()}`);
  failed = true;
} else {
  console.log(`ok   prettier (${scripts.length} files)`);
}

const native = tracked(['native/*.cpp', 'native/*.hpp', 'native/*.h', 'native/*.cu', 'native/*.hip', 'native/*.inc']);
const version = spawnSync(CLANG_FORMAT, ['--version'], { encoding: 'utf8' });
if (version.error) {
  console.log(`skip clang-format: ${CLANG_FORMAT} is not installed (sudo apt-get install -y clang-format-19)`);
} else {
  const clang = inBatches(CLANG_FORMAT, check ? ['--dry-run', '-Werror'] : ['-i'], native);
  if (clang.status !== 0) {
    const files = [...new Set([...clang.output.matchAll(/^(\S+?):\d+:\d+: error/gm)].map((m) => m[1]))];
    console.log(
      `FAIL clang-format: ${files.length || 'some'} file(s) not formatted (npm run format):\n  ${files.join('\n  ')}`,
    );
    failed = true;
  } else {
    console.log(`ok   clang-format (${native.length} files)`);
  }
}
process.exit(failed ? 1 : 0);
