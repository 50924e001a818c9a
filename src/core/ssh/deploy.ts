/**
 * Getting a working helper onto a node, in a fixed order, each candidate checked by the
 * `--version` handshake:
 *   1. a path configured for remote nodes (an error if it does not answer, never a silent fallback),
 *   2. a build of these exact sources already in the node's cache,
 *   3. an `sdma-probe` on the node's PATH that speaks our protocol,
 *   4. else: copy the sources (a tar over the ssh channel) and build them with the node's
 *      CMake and compilers, into ${XDG_CACHE_HOME:-~/.cache}/sdma-lens/helper-<key>/.
 * The cache key is the source hash plus the GPU compilers the node has, so installing ROCm
 * or CUDA later gets a build with that backend. Nothing is written outside the cache folder.
 */
import { randomBytes } from 'node:crypto';
import type { HelperInfo } from '../runtime/helper';
import { HelperError, HELPER_NAME, parseVersionLine, sourceHash } from '../runtime/helper';
import { PROTOCOL_VERSION } from '../protocol';
import type { SshConnection } from './connection';
import { SshError } from './connection';
import { BUILD, PROBE, REMOVE_CACHE_DIR, UNPACK } from './remoteScripts';
import { HEARTBEAT_INTERVAL_MS } from './remoteScripts';
import { packSources } from './tarPack';

export interface RemoteHelperInfo extends Omit<HelperInfo, 'source'> {
  source: 'setting' | 'cached' | 'path' | 'built';
  /** The node's per-user cache folder (absolute). */
  cacheDir: string;
  host: string;
}

export interface NodeFacts {
  cacheDir: string;
  home: string;
  have: Set<string>;
  configured?: string;
  configuredMissing: boolean;
  cached: { path: string; versionLine: string }[];
  onPath?: { path: string; versionLine: string };
  uname?: string;
}

export function parseProbe(text: string): NodeFacts {
  const facts: NodeFacts = { cacheDir: '', home: '', have: new Set(), configuredMissing: false, cached: [] };
  let onPath: string | undefined;
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'cache') facts.cacheDir = value;
    else if (key === 'home') facts.home = value;
    else if (key === 'have') facts.have.add(value);
    else if (key === 'configured') facts.configured = value;
    else if (key === 'configured-missing') facts.configuredMissing = true;
    else if (key === 'cached') {
      const space = value.indexOf(' ');
      if (space > 0) facts.cached.push({ path: value.slice(0, space), versionLine: value.slice(space + 1) });
    } else if (key === 'onpath') onPath = value;
    else if (key === 'onpath-version' && onPath) facts.onPath = { path: onPath, versionLine: value };
    else if (key === 'uname') facts.uname = value;
  }
  return facts;
}

/** `-hip`, `-cuda`, `-hip-cuda` or '' after the source hash: which GPU compilers the build could use. */
export function toolchainSuffix(have: Set<string>): string {
  return `${have.has('hipcc') ? '-hip' : ''}${have.has('nvcc') ? '-cuda' : ''}`;
}

export interface DeployOptions {
  /** The helper's source folder here (native/). */
  sourceDir: string;
  /** An absolute path of sdma-probe on the node; empty for none. */
  configuredPath?: string;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  onOutput?: (line: string) => void;
}

function compatible(versionLine: string): ReturnType<typeof parseVersionLine> {
  const info = parseVersionLine(versionLine);
  return info && info.protocol === PROTOCOL_VERSION ? info : undefined;
}

/** Finds or builds the helper on the node; throws HelperError (or SshError) saying what to do. */
export async function deployHelper(conn: SshConnection, o: DeployOptions): Promise<RemoteHelperInfo> {
  const node = conn.label;
  const configured = o.configuredPath?.trim() ?? '';
  if (configured && (!configured.startsWith('/') || /[\0\r\n]/.test(configured))) {
    throw new HelperError(
      `sdmaLens.ssh.helperPath must be an absolute path on the node (got "${configured}")`,
      'Set it to the full path of sdma-probe on the node, or clear it to build one there.',
    );
  }
  // A configured helper needs no sources here (a CLI run from an unpacked package may not have them).
  const hash = configured ? 'none' : await sourceHash(o.sourceDir);
  o.onProgress?.(`Connecting to ${node}`);
  const probe = await conn.execChecked(['sh', '-c', PROBE, 'sdma-lens', hash, configured], { signal: o.signal });
  if (probe.exitCode !== 0) {
    throw new SshError(
      `${node} could not run the probe script (exit ${probe.exitCode}): ${probe.stderr.trim().split('\n').at(-1) ?? ''}`,
      'SDMA Lens needs a POSIX sh on the node; check `ssh ' + node + ' sh -c true`.',
    );
  }
  const facts = parseProbe(probe.stdout);
  if (!facts.cacheDir.startsWith('/'))
    throw new SshError(
      `${node} did not say where its cache folder is (HOME unset?)`,
      'Check that your account on the node has a home folder.',
    );
  const base = { cacheDir: facts.cacheDir, host: node };

  if (configured) {
    if (facts.configuredMissing)
      throw new HelperError(
        `${configured} does not exist or is not executable on ${node}`,
        'Fix sdmaLens.ssh.helperPath, or clear it to build the helper on the node.',
      );
    const info = parseVersionLine(facts.configured ?? '');
    if (!info)
      throw new HelperError(
        `${configured} on ${node} is not sdma-probe (its --version said "${(facts.configured ?? '').slice(0, 80)}")`,
        'Point sdmaLens.ssh.helperPath at the sdma-probe binary on the node.',
      );
    if (info.protocol !== PROTOCOL_VERSION)
      throw new HelperError(
        `${configured} on ${node} speaks protocol ${info.protocol}; this version of SDMA Lens speaks ${PROTOCOL_VERSION}`,
        'Clear sdmaLens.ssh.helperPath to build a matching helper on the node.',
      );
    return { ...info, ...base, path: configured, source: 'setting' };
  }

  const key = `${hash}${toolchainSuffix(facts.have)}`;
  const wanted = `${facts.cacheDir}/helper-${key}/${HELPER_NAME}`;
  const cached = facts.cached.find((c) => c.path === wanted);
  const cachedInfo = cached && compatible(cached.versionLine);
  if (cached && cachedInfo) return { ...cachedInfo, ...base, path: cached.path, source: 'cached' };
  const pathInfo = facts.onPath && compatible(facts.onPath.versionLine);
  if (facts.onPath && pathInfo) return { ...pathInfo, ...base, path: facts.onPath.path, source: 'path' };

  return build(conn, o, facts, hash, key);
}

async function build(
  conn: SshConnection,
  o: DeployOptions,
  facts: NodeFacts,
  hash: string,
  key: string,
): Promise<RemoteHelperInfo> {
  const node = conn.label;
  const missing = (tool: string, remedy: string) =>
    new HelperError(`${tool} was not found on ${node}, so the helper cannot be built there`, remedy);
  const setting = 'or set sdmaLens.ssh.helperPath to an sdma-probe already on the node';
  if (!facts.have.has('tar')) throw missing('tar', `Install tar on the node, ${setting}.`);
  if (!facts.have.has('setsid'))
    throw missing(
      'setsid (util-linux)',
      `Install util-linux on the node; SDMA Lens needs it to stop everything it starts there.`,
    );
  if (!facts.have.has('cmake'))
    throw missing(
      'CMake',
      `Install CMake 3.20+ and a C++17 compiler on the node (Debian: sudo apt-get install cmake g++), ${setting}.`,
    );
  if (!['c++', 'g++', 'clang++'].some((c) => facts.have.has(c)))
    throw missing(
      'a C++ compiler',
      `Install a C++17 compiler on the node (Debian: sudo apt-get install g++), ${setting}.`,
    );

  const token = randomBytes(8).toString('hex');
  o.onProgress?.(`Copying the helper sources to ${node}`);
  const archive = await packSources(o.sourceDir);
  const unpack = await conn.execChecked(['sh', '-c', UNPACK, 'sdma-lens', token], { input: archive, signal: o.signal });
  if (unpack.exitCode !== 0)
    throw new HelperError(
      `copying the helper sources to ${node} failed: ${unpack.stderr.trim().split('\n').at(-1) ?? `exit ${unpack.exitCode}`}`,
      `Check free space in ${facts.cacheDir} on the node.`,
    );

  o.onProgress?.(`Building the helper on ${node} (source ${hash})`);
  // Watched like a run: cancelling kills cmake, make and the compilers on the node.
  const watched = await conn.startWatched(['sh', '-c', BUILD, 'sdma-lens', token, key], HEARTBEAT_INTERVAL_MS);
  const onAbort = () => {
    watched.closeInput();
    void conn.killWatched(watched.token).catch(() => {});
  };
  if (o.signal?.aborted) onAbort();
  else o.signal?.addEventListener('abort', onAbort, { once: true });
  const log: string[] = [];
  let pending = '';
  const onText = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) {
      log.push(line);
      if (log.length > 400) log.shift();
      o.onOutput?.(line);
      if (line === 'sdma-lens: compile') o.onProgress?.(`Compiling the helper on ${node}`);
    }
  };
  watched.stdout.on('data', onText);
  watched.stderr.on('data', onText);
  const exit = await watched.exit;
  o.signal?.removeEventListener('abort', onAbort);
  if (pending) log.push(pending);
  const text = log.join('\n');
  if (o.signal?.aborted) {
    // The build's group is gone once the wrapper has exited, but a SIGKILLed build shell never ran its cleanup.
    await conn
      .exec(['sh', '-c', REMOVE_CACHE_DIR, 'sdma-lens', `build-${token}`], { timeoutMs: 15_000 })
      .catch(() => {});
    throw new HelperError(`the helper build on ${node} was cancelled`, 'Run the command again to build it.');
  }
  if (exit.exitCode === 255)
    throw new SshError(
      `the connection to ${node} dropped during the helper build`,
      'Run the command again; the build starts over.',
    );
  if (exit.exitCode !== 0) {
    if (
      /No CMAKE_CXX_COMPILER could be found|CMAKE_CXX_COMPILER.*not found|is not a full path to an existing compiler/i.test(
        text,
      )
    ) {
      throw new HelperError(
        `CMake found no working C++ compiler on ${node}`,
        `Install a C++17 compiler on the node (Debian: sudo apt-get install g++), ${setting}.`,
      );
    }
    if (/CMake [0-9.]+ or higher is required/i.test(text)) {
      throw new HelperError(
        `the CMake on ${node} is too old for the helper`,
        `Install CMake 3.20 or newer on the node, ${setting}.`,
      );
    }
    if (/SDMA_PROBE_WITH_HIP=ON|hip.*not found|ROCm/i.test(text) && exit.exitCode === 10) {
      throw new HelperError(
        `the HIP/ROCm toolchain on ${node} could not be used for the helper`,
        'Check the ROCm installation on the node (hipcc, /opt/rocm); the build log is in the output channel.',
      );
    }
    const step =
      exit.exitCode === 10
        ? 'configuring'
        : exit.exitCode === 11
          ? 'compiling'
          : exit.exitCode === 12
            ? 'checking the built binary'
            : 'installing into the cache';
    throw new HelperError(
      `building the helper on ${node} failed while ${step} (exit ${exit.exitCode}); the build log is in the output channel`,
      `Fix the error shown in the log, ${setting}.`,
    );
  }
  const backendsLine = /sdma-probe backends: (.*)$/m.exec(text)?.[1];
  if (backendsLine) o.onProgress?.(`Built on ${node}: backends ${backendsLine}`);
  const path = `${facts.cacheDir}/helper-${key}/${HELPER_NAME}`;
  const versionLine = log.find((l) => l.startsWith('sdma-probe ')) ?? '';
  const info = compatible(versionLine);
  if (!info)
    throw new HelperError(
      `the helper built on ${node} answered "${versionLine.slice(0, 80)}" to --version`,
      'Report this with the build log from the output channel.',
    );
  if (facts.have.has('hipcc') && !info.backends.includes('hip')) {
    o.onProgress?.(
      `hipcc was found on ${node} but the helper was built without the hip backend (see the build log); AMD GPUs will not be measured`,
    );
  }
  return { ...info, path, source: 'built', cacheDir: facts.cacheDir, host: node };
}

/** A run that asks for a GPU backend the node's helper lacks fails here, with the node's reason, not deep in the helper. */
export function checkBackendOnNode(info: RemoteHelperInfo, backend: string): void {
  if (backend === 'auto' || backend === 'sim' || info.backends.includes(backend)) return;
  const toolkit =
    backend === 'hip' ? 'ROCm (hipcc in /opt/rocm/bin or on PATH)' : 'CUDA (nvcc in /usr/local/cuda/bin or on PATH)';
  throw new HelperError(
    `the helper on ${info.host} has no ${backend} backend (it has: ${info.backends.join(', ')})`,
    info.source === 'built' || info.source === 'cached'
      ? `Install ${toolkit} on the node; the next run rebuilds the helper with it. Or choose the backend "auto" or "sim".`
      : `The helper at ${info.path} was built without it; clear sdmaLens.ssh.helperPath to build one on the node, or choose "auto" or "sim".`,
  );
}
