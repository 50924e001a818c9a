/**
 * `npm run bench -- hostileInputs`: what SDMA Lens does with data others hand a user, one row per
 * class of input: a run folder or repository crafted to run code, flood memory, hang a read or
 * delete files. Each row runs the product as a process of its own (the bundled CLI, or the runs
 * folder code through a small driver: this file run again with `--driver`) under an address-space
 * limit and a timeout, so even the old behaviour could not take the machine down, and prints:
 * tries, commands executed by the input, bytes lost, whether a clear error (one sentence, no
 * stack) was said, processes left behind, peak memory and the time until the input was refused.
 * The reference for the figures is the same process reading a small clean input in the same run.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RunStore } from '../src/core/runs/runStore';
import { loadTimeline, runTimeline } from '../src/core/runs/timelineSource';

const LIMIT_BYTES = 2 * 1024 ** 3;
const TIMEOUT_S = 30;
const MARK = `sdma-hostile-${process.pid}`;

type DriverRequest = { action: 'timeline'; root: string; id: string } | { action: 'delete'; root: string; id: string };

async function driver(req: DriverRequest): Promise<unknown> {
  const store = new RunStore(req.root);
  if (req.action === 'delete') return store.delete(req.id);
  const run = await store.open(req.id);
  const at = runTimeline(run, store.dirOf(req.id));
  if (!at) return 'no timeline';
  return (await loadTimeline(run, at)).count;
}

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  peakMiB: number;
  left: number;
}

/** `argv` under the address-space limit and the timeout, its peak RSS from /usr/bin/time, and the processes it left. */
function limited(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Outcome {
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', 'prlimit', `--as=${LIMIT_BYTES}`, '--', 'timeout', '-s', 'KILL', String(TIMEOUT_S), ...argv],
    {
      encoding: 'utf8',
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), SDMA_HOSTILE_MARK: MARK },
      input: options.input,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const ms = performance.now() - t0;
  const lines = r.stderr.trimEnd().split('\n');
  const peakKiB = Number(lines.pop());
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: lines.join('\n'),
    ms,
    peakMiB: Number.isFinite(peakKiB) ? peakKiB / 1024 : NaN,
    left: processesLeft(),
  };
}

/** Processes still running whose environment carries this run's mark. */
function processesLeft(): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (Number(pid) !== process.pid && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(MARK)) n++;
    } catch {
      // gone since
    }
  }
  return n;
}

const clearError = (o: Outcome, text: string) =>
  /^[^\n]{10,600}$/.test(text.trim()) && !/\n\s+at /.test(o.stderr) && o.status !== 137;

interface Row {
  input: string;
  tries: number;
  executed: number | string;
  lost: string;
  clear: string;
  left: number;
  peakMiB: number;
  detectMs: number;
}

function main(): void {
  const repo = resolve(__dirname, '..', '..', '..');
  const work = mkdtempSync(join(tmpdir(), 'sdma-hostile-'));
  const self = process.argv[1]!;
  // The CLI as users run it: `npm run bench` builds dist/ first.
  const cli = join(repo, 'dist', 'cli.js');
  const fixture = readFileSync(join(repo, 'test', 'fixtures', 'runs', 'sim-sweep-seed1.ndjson'), 'utf8')
    .trim()
    .split('\n');
  const rows: Row[] = [];
  const node = process.execPath;

  /** A runs folder with one copy of the fixture sweep per id, each line passed through `edit`. */
  const runsWith = (name: string, ids: string[], edit: (line: Record<string, unknown>) => void = () => {}) => {
    const root = join(work, name);
    for (const id of ids) {
      mkdirSync(join(root, id), { recursive: true });
      const lines = fixture.map((l) => {
        const rec = JSON.parse(l) as Record<string, unknown>;
        if (rec.type === 'run') rec.id = id;
        edit(rec);
        return JSON.stringify(rec);
      });
      writeFileSync(join(root, id, 'run.ndjson'), `${lines.join('\n')}\n`);
    }
    return root;
  };

  // Reference: advise on the clean fixture.
  const clean = runsWith('clean', ['a', 'b']);
  const ref = limited([node, cli, 'advise', 'a', '--runs-dir', clean]);
  console.log(
    `reference: sdma-lens advise on a clean 78-point run: exit ${ref.status}, ${ref.ms.toFixed(0)} ms, ${ref.peakMiB.toFixed(0)} MiB peak`,
  );

  // 1. Command execution through the advice block.
  {
    const stubs = join(work, 'stubs');
    mkdirSync(stubs);
    const log = join(work, 'stub.log');
    for (const tool of ['touch', 'rm', 'curl', 'wget', 'sh', 'bash', 'cat', 'id']) {
      writeFileSync(join(stubs, tool), `#!/bin/sh\necho ${tool} >> ${log}\n`);
      chmodSync(join(stubs, tool), 0o755);
    }
    const payloads = ['\ntouch X', '\n$(touch X)\n', '`touch X`', '\u2028touch X\r', '; rm -rf ~', '\r\ncurl x|sh'];
    let executed = 0;
    let peak = 0;
    let ms = 0;
    for (const [i, p] of payloads.entries()) {
      const root = runsWith(`inject${i}`, ['r'], (rec) => {
        if (rec.type === 'topology')
          (rec as { libraries?: unknown }).libraries = [{ name: 'rccl', version: `2.27.7${p}` }];
        if (rec.type === 'topology') (rec as { node: { name: string } }).node.name = `node${p}`;
      });
      const o = limited([node, cli, 'advise', 'r', '--runs-dir', root]);
      peak = Math.max(peak, o.peakMiB);
      ms += o.ms;
      const script = join(work, `knobs${i}.sh`);
      writeFileSync(script, o.stdout);
      writeFileSync(log, '');
      spawnSync('/bin/sh', ['-c', '. "$1"', 'sh', script], { env: { PATH: stubs }, cwd: work, encoding: 'utf8' });
      executed += readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    }
    rows.push({
      input: 'advise > knobs.sh; . knobs.sh, a library version and node name with a newline, $(), backquotes, U+2028',
      tries: payloads.length,
      executed,
      lost: '-',
      clear: 'advice printed; outside text inside # lines',
      left: processesLeft(),
      peakMiB: peak,
      detectMs: ms / payloads.length,
    });
  }

  // 2. Terminal control and forged lines in reports.
  {
    const payload = '\x1b]0;owned\x07\x1b[2J\u202egpu\nFORGED LINE';
    const root = runsWith('forge', ['a', 'b'], (rec) => {
      if (rec.type === 'topology') (rec as { node: { name: string } }).node.name = `mi350x${payload}`;
    });
    const outs = [
      limited([node, cli, 'advise', 'a', '--runs-dir', root]),
      limited([node, cli, 'runs', '--runs-dir', root]),
      limited([node, cli, 'compare', 'a', 'b', '--runs-dir', root]),
    ];
    const cleanOuts = [
      limited([node, cli, 'advise', 'a', '--runs-dir', clean]),
      limited([node, cli, 'runs', '--runs-dir', clean]),
      limited([node, cli, 'compare', 'a', 'b', '--runs-dir', clean]),
    ];
    // eslint-disable-next-line no-control-regex
    const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
    const raw = outs.reduce((n, o) => n + ((o.stdout + o.stderr).match(UNSAFE)?.length ?? 0), 0);
    const forged = outs.reduce(
      (n, o, i) => n + Math.max(0, o.stdout.split('\n').length - cleanOuts[i]!.stdout.split('\n').length),
      0,
    );
    rows.push({
      input: 'advise, runs, compare: ESC/OSC/CSI, RLO and a newline in the node name',
      tries: 3,
      executed: `${raw} raw controls, ${forged} forged lines`,
      lost: '-',
      clear: 'one escaped line per field',
      left: processesLeft(),
      peakMiB: Math.max(...outs.map((o) => o.peakMiB)),
      detectMs: outs.reduce((s, o) => s + o.ms, 0) / outs.length,
    });
  }

  // 3. Timelines that flood, hang or leak.
  const timelineRow = (input: string, place: (dir: string) => void, path: string) => {
    const root = runsWith(`tl-${rows.length}`, ['r']);
    const dir = join(root, 'r');
    place(dir);
    // The timeline record the helper prints before `done`, naming `path`.
    const lines = readFileSync(join(dir, 'run.ndjson'), 'utf8').trimEnd().split('\n');
    const done = lines.findIndex((l) => l.startsWith('{"type":"done"'));
    lines.splice(
      done,
      0,
      JSON.stringify({
        type: 'timeline',
        path,
        format: 'sdmatl',
        version: 1,
        eventCount: 10,
        fileBytes: 522,
        sizeBytes: 1 << 20,
      }),
    );
    writeFileSync(join(dir, 'run.ndjson'), `${lines.join('\n')}\n`);
    const o = limited([node, self, '--driver', JSON.stringify({ action: 'timeline', root, id: 'r' })]);
    let said = '';
    try {
      const r = JSON.parse(o.stdout) as { ok: boolean; message?: string; value?: unknown };
      said = r.ok ? `read: ${String(r.value)}` : r.message!;
    } catch {
      said = o.status === 137 ? 'killed (limit or timeout)' : `no answer (exit ${o.status})`;
    }
    rows.push({
      input,
      tries: 1,
      executed: 0,
      lost: '-',
      clear:
        clearError(o, said) && !said.startsWith('read') ? `yes: "${said.slice(0, 90)}"` : `no: ${said.slice(0, 60)}`,
      left: o.left,
      peakMiB: o.peakMiB,
      detectMs: o.ms,
    });
  };
  timelineRow(
    'timeline.sdmatl in the run folder is a link to /dev/zero',
    (dir) => symlinkSync('/dev/zero', join(dir, 'timeline.sdmatl')),
    'timeline.sdmatl',
  );
  timelineRow(
    'timeline.sdmatl is a FIFO',
    (dir) => spawnSync('mkfifo', [join(dir, 'timeline.sdmatl')]),
    'timeline.sdmatl',
  );
  timelineRow('the timeline record names /etc/passwd', () => {}, '/etc/passwd');
  timelineRow(
    'the timeline record names ../../outside.sdmatl',
    (dir) => writeFileSync(join(dir, '..', '..', 'outside.sdmatl'), 'x'),
    '../../outside.sdmatl',
  );
  timelineRow(
    'timeline.sdmatl is a 3 GiB sparse file',
    (dir) => spawnSync('truncate', ['-s', '3G', join(dir, 'timeline.sdmatl')]),
    'timeline.sdmatl',
  );

  // 4. Delete Run on what is not a run, and on a run holding a user's file.
  {
    const root = runsWith('del', ['r']);
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, 'r', 'notes.txt'), 'mine\n');
    const git = limited([node, self, '--driver', JSON.stringify({ action: 'delete', root, id: '.git' })]);
    const run = limited([node, self, '--driver', JSON.stringify({ action: 'delete', root, id: 'r' })]);
    const gitKept = readdirSync(join(root, '.git')).length === 1;
    let userKept = false;
    try {
      userKept = readFileSync(join(root, 'r', 'notes.txt'), 'utf8') === 'mine\n';
    } catch {
      userKept = false;
    }
    const said = (JSON.parse(git.stdout) as { message?: string }).message ?? 'deleted';
    rows.push({
      input: 'Delete Run on .git in the runs folder; on a run holding notes.txt',
      tries: 2,
      executed: 0,
      lost: `${gitKept ? 0 : 1} of .git, ${userKept ? 0 : 1} user file`,
      clear: clearError(git, said) ? `yes: "${said.slice(0, 90)}"` : `no: ${said.slice(0, 60)}`,
      left: git.left + run.left,
      peakMiB: Math.max(git.peakMiB, run.peakMiB),
      detectMs: git.ms,
    });
  }

  // 5. The CLI's output through a pipe into a slow reader.
  {
    const root = join(work, 'many');
    const header = JSON.parse(fixture[0]!) as Record<string, unknown>;
    const end = fixture.at(-1)!;
    for (let i = 0; i < 10_000; i++) {
      const id = `run-${String(i).padStart(5, '0')}`;
      mkdirSync(join(root, id), { recursive: true });
      writeFileSync(join(root, id, 'run.ndjson'), `${JSON.stringify({ ...header, id })}\n${end}\n`);
    }
    const toFile = spawnSync(node, [cli, 'runs', '--runs-dir', root], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const t0 = performance.now();
    // The reader pauses 2 ms after every chunk it takes, so the pipe stays full while the CLI writes.
    const reader =
      'let n=0;process.stdin.on("data",(c)=>{n+=c.length;process.stdin.pause();setTimeout(()=>process.stdin.resume(),2)}).on("end",()=>console.log(n))';
    const piped = spawnSync(
      '/bin/sh',
      ['-c', '"$0" "$1" runs --runs-dir "$2" | "$0" -e "$3"', node, cli, root, reader],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const got = Number(piped.stdout.trim());
    const want = Buffer.byteLength(toFile.stdout);
    rows.push({
      input: 'sdma-lens runs over 10,000 runs piped into a reader pausing 2 ms after every chunk',
      tries: 1,
      executed: 0,
      lost: `${want - got} of ${want} bytes`,
      clear: '-',
      left: processesLeft(),
      peakMiB: NaN,
      detectMs: performance.now() - t0,
    });
  }

  console.log(`\nlimits for every row: ${LIMIT_BYTES / 1024 ** 3} GiB of address space, ${TIMEOUT_S} s\n`);
  console.log('| input | tries | executed | lost | clear error | processes left | memory peak | time to detect |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.input} | ${r.tries} | ${r.executed} | ${r.lost} | ${r.clear} | ${r.left} | ${Number.isNaN(r.peakMiB) ? '-' : `${r.peakMiB.toFixed(0)} MiB`} | ${r.detectMs.toFixed(0)} ms |`,
    );
  console.log(
    `\nreference (clean advise) ${ref.peakMiB.toFixed(0)} MiB, ${ref.ms.toFixed(0)} ms; ratio of the worst row's peak to it: ${(Math.max(...rows.map((r) => (Number.isNaN(r.peakMiB) ? 0 : r.peakMiB))) / ref.peakMiB).toFixed(2)}`,
  );
  rmSync(work, { recursive: true, force: true });
}

if (process.argv[2] === '--driver') {
  driver(JSON.parse(process.argv[3]!) as DriverRequest).then(
    (value) => process.stdout.write(JSON.stringify({ ok: true, value })),
    (err: Error) => process.stdout.write(JSON.stringify({ ok: false, message: err.message })),
  );
} else {
  main();
}
