/**
 * Runs the helper on a node over SSH. The Target contract is the local one: an argument
 * array in, streams and an exit out, and cancellation that takes the whole process tree.
 *
 * On the node the helper runs under the WATCHED_RUN wrapper (remoteScripts.ts), in its own
 * process group. Cancel ends the heartbeat input (the node kills the group at once) and also
 * asks over a second channel; if the node cannot be reached, the local ssh client is killed
 * after the grace period, and the node's watchdog finishes the job when heartbeats stop.
 *
 * A connection lost mid-run ends the run with ssh's own status (255); a last stderr line says
 * so in words, which the session shows as the run's closing message.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { KILL_GRACE_MS } from '../runtime/localTarget';
import type { HelperProcess, ProcessExit, RunOutputs, SpawnOptions, Target } from '../runtime/target';
import { SSH_ERROR_EXIT, SshConnection, explainSshFailure } from './connection';
import type { SshDestination } from './destination';
import { fetchRemoteRunFile, makeRemoteRunDir, removeRemoteRunDir } from './remoteFiles';
import { HEARTBEAT_INTERVAL_MS, NODE_STOPS_HELPER_WITHIN_S, REMOTE_KILL_GRACE_S } from './remoteScripts';
import type { SshSettings } from './sshArgs';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const SSH_MESSAGE =
  /^(Connection |Timeout|client_loop|mux_client|ssh:|ssh_|Read from|Write failed|packet_write|Control socket|Shared connection|Broken pipe)/;

export class SshTarget implements Target {
  readonly kind = 'ssh';
  readonly label: string;
  readonly connection: SshConnection;

  constructor(destination: SshDestination | SshConnection, settings: SshSettings = {}) {
    this.connection = destination instanceof SshConnection ? destination : new SshConnection(destination, settings);
    this.label = this.connection.label;
  }

  /** For the run header: the destination as the user wrote it. */
  get host(): string {
    return this.connection.label;
  }

  /** `options.cwd` is a folder here, so it is not used: on the node the helper starts in the login folder and gets absolute paths. */
  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let pid: number | undefined;
    // `env` with NAME=VALUE words sets the environment without a shell; names are checked so none reads as an option.
    const env = Object.entries(options.env ?? {});
    for (const [name] of env)
      if (!ENV_NAME.test(name)) throw new Error(`environment variable name "${name}" is not valid`);
    const argv = env.length > 0 ? ['env', ...env.map(([k, v]) => `${k}=${v}`), file, ...args] : [file, ...args];

    const exit = (async (): Promise<ProcessExit> => {
      let watched;
      try {
        watched = await this.connection.startWatched(argv, HEARTBEAT_INTERVAL_MS);
      } catch (err) {
        stdout.end();
        stderr.end();
        return { exitCode: null, signal: null, spawnError: (err as Error).message };
      }
      pid = watched.pid;
      let sawOutput = false;
      const sshStderr: string[] = [];
      watched.stdout.on('data', () => (sawOutput = true));
      watched.stdout.pipe(stdout);
      watched.stderr.on('data', (chunk: Buffer) => {
        sshStderr.push(chunk.toString('utf8'));
        if (sshStderr.length > 50) sshStderr.shift();
      });
      // stderr is forwarded by hand so a closing line can be added after ssh's own.
      watched.stderr.on('data', (chunk: Buffer) => stderr.write(chunk));

      let forceTimer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        watched.closeInput();
        void this.connection.killWatched(watched.token).catch(() => {});
        // The node could not be told: drop our end; its watchdog stops the helper when heartbeats stop.
        forceTimer = setTimeout(() => watched.killLocal('SIGTERM'), KILL_GRACE_MS + REMOTE_KILL_GRACE_S * 1000 + 2000);
        forceTimer.unref();
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });

      const result = await watched.exit;
      options.signal?.removeEventListener('abort', onAbort);
      if (forceTimer) clearTimeout(forceTimer);
      watched.closeInput();
      await new Promise<void>((resolve) => {
        if (watched.stderr.readableEnded || watched.stderr.destroyed) resolve();
        else watched.stderr.once('close', () => resolve());
      });

      if (result.failed) {
        stdout.end();
        stderr.end();
        return { exitCode: null, signal: null, spawnError: `could not run ssh: ${result.failed}` };
      }
      let lost: string | undefined;
      if (result.exitCode === SSH_ERROR_EXIT && !options.signal?.aborted) {
        const said = sshStderr.join('');
        // The channel's stderr also carries the helper's diagnostics; only ssh's own words explain a drop.
        const lastSshLine = said
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => SSH_MESSAGE.test(l))
          .at(-1);
        const why = explainSshFailure(this.label, said, this.connection.connectTimeoutS);
        // Timed from the silence, not from this line: ssh says so only after its keepalives went unanswered.
        const line = sawOutput
          ? `sdma-lens: the connection to ${this.label} dropped${lastSshLine ? ` (ssh: ${lastSshLine})` : ''}; the partial run is kept, and the node stops the helper within ${NODE_STOPS_HELPER_WITHIN_S} s of the connection going quiet`
          : `sdma-lens: ${why.message}. ${why.remedy}`;
        stderr.write(`\n${line}\n`);
        lost = line.replace(/^sdma-lens: /, '');
      }
      stderr.end();
      return { exitCode: result.exitCode, signal: result.signal, ...(lost ? { lost } : {}) };
    })();

    return {
      get pid() {
        return pid;
      },
      stdout,
      stderr,
      exit,
    };
  }

  /**
   * The helper writes into out/<run id>/ in the node's cache folder; afterwards the files are
   * copied into the run's folder here and the node's folder is removed, whatever happened.
   */
  async outputs(runId: string, localDir: string): Promise<RunOutputs> {
    const conn = this.connection;
    const remoteDir = await makeRemoteRunDir(conn, runId);
    return {
      path: (name) => `${remoteDir}/${name}`,
      collect: async (names, onProblem) => {
        const missing: string[] = [];
        try {
          await mkdir(localDir, { recursive: true });
          for (const name of names) {
            try {
              if (!(await fetchRemoteRunFile(conn, runId, name, join(localDir, name)))) missing.push(name);
            } catch (err) {
              onProblem?.(`could not copy ${name} from ${conn.label}: ${(err as Error).message}`);
              missing.push(name);
            }
          }
        } finally {
          await removeRemoteRunDir(conn, runId).catch((err: Error) =>
            onProblem?.(`could not clear the run folder on ${conn.label}: ${err.message}`),
          );
        }
        return missing;
      },
    };
  }
}
