// A real clamd for tests: Debian's /usr/sbin/clamd, started offline with only the signatures a test gives it
// (a `.ndb` file of body signatures, `Name:0:*:<hex>`), on a free loopback port and on a unix socket, both in a
// temporary directory. No official database is loaded and nothing is downloaded, so it starts in about a second.
// StreamMaxLength is 1 MiB so that the size limit is cheap to reach. If clamd cannot start, startClamd rejects
// with clamd's own output: a missing scanner is a failure, never a skipped test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const CLAMD_BINARY = '/usr/sbin/clamd';

/** clamd's StreamMaxLength in these tests: INSTREAM refuses more bytes than this. */
export const TEST_STREAM_MAX_LENGTH = 1024 * 1024;

export interface ClamdSignature {
  /** Reported as `<name>.UNOFFICIAL`. Letters, digits, dots, dashes and underscores. */
  name: string;
  /** Matched anywhere in a scanned stream. */
  bytes: Buffer;
}

export interface StartClamdOptions {
  /** Bare byte strings are named `Svc.Test.Signature<n>`. */
  signatures: readonly (Buffer | ClamdSignature)[];
  /** How long to wait for PONG, in ms. Default 30 s. */
  startTimeoutMs?: number;
}

export interface TestClamd {
  /** `clamd://127.0.0.1:<port>`. */
  url: string;
  /** `clamd:///<dir>/clamd.sock`. */
  socketUrl: string;
  port: number;
  /** The name clamd reports for each signature, in the order given: `<name>.UNOFFICIAL`. */
  detections: string[];
  /** From spawn to the first PONG, in ms. */
  startupMs: number;
  /** SIGTERM, then waits for the process to exit (SIGKILL after 10 s); removes the directory. Idempotent. */
  stop(): Promise<void>;
}

export async function startClamd(options: StartClamdOptions): Promise<TestClamd> {
  const signatures = options.signatures.map((signature, index) =>
    Buffer.isBuffer(signature) ? { name: `Svc.Test.Signature${index + 1}`, bytes: signature } : signature,
  );
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-clamd-'));
  try {
    await writeFile(
      path.join(dir, 'test.ndb'),
      signatures.map(({ name, bytes }) => `${name}:0:*:${bytes.toString('hex')}\n`).join(''),
    );
    // A port freed just before clamd binds it can be taken in between: try another one.
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await launch(dir, signatures, options.startTimeoutMs ?? 30_000);
      } catch (error) {
        lastError = error;
        if (!String(error).includes('Address already in use')) break;
      }
    }
    throw lastError;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function launch(dir: string, signatures: ClamdSignature[], startTimeoutMs: number): Promise<TestClamd> {
  const port = await freePort();
  const socketPath = path.join(dir, 'clamd.sock');
  const logFile = path.join(dir, 'clamd.log');
  // Written in full so that nothing of the distro's /etc/clamav/clamd.conf applies (its LocalSocket, its
  // User clamav, its database directory). Without `User`, clamd keeps the test's own user.
  const config = [
    `DatabaseDirectory ${dir}`,
    `TCPSocket ${port}`,
    'TCPAddr 127.0.0.1',
    `LocalSocket ${socketPath}`,
    'Foreground yes',
    `LogFile ${logFile}`,
    'LogTime no',
    `PidFile ${path.join(dir, 'clamd.pid')}`,
    `StreamMaxLength ${TEST_STREAM_MAX_LENGTH}`,
    'SelfCheck 0',
    'MaxThreads 4',
    '',
  ].join('\n');
  const configFile = path.join(dir, 'clamd.conf');
  await writeFile(configFile, config);

  const started = performance.now();
  const child = spawn(CLAMD_BINARY, [`--config-file=${configFile}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`spawn failed: ${error.message}`));
    child.once('exit', (code, signal) => resolve(`exited with ${signal ?? `code ${code}`}`));
  });

  const deadline = Date.now() + startTimeoutMs;
  let exit: string | undefined;
  void exited.then((how) => (exit = how));
  while (!(await ping(port))) {
    if (exit !== undefined || Date.now() > deadline) {
      if (exit === undefined) await terminate(child);
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(
        `clamd did not answer PING on 127.0.0.1:${port} (${exit ?? `no PONG within ${startTimeoutMs} ms`}).\n` +
          `output:\n${output}\nlog:\n${log}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const startupMs = Math.round(performance.now() - started);

  let stopping: Promise<void> | undefined;
  return {
    url: `clamd://127.0.0.1:${port}`,
    socketUrl: `clamd://${socketPath}`,
    port,
    detections: signatures.map(({ name }) => `${name}.UNOFFICIAL`),
    startupMs,
    stop() {
      stopping ??= terminate(child).then(() => rm(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}

/** Sends `zPING\0`; true on `PONG`. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('connect', () => socket.write('zPING\0'));
    socket.on('data', (data: Buffer) => {
      reply += data.toString('latin1');
      if (reply.includes('\0')) done(reply === 'PONG\0');
    });
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}
