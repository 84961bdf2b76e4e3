// The stdio client transport: spawns the tool server and speaks newline-delimited JSON-RPC on its stdin and
// stdout. A server that cannot start or exits is reported through onclose (MCP_SERVER_EXITED); start() then
// spawns a fresh process, so the client's next call respawns it.
import { spawn, type ChildProcess } from 'node:child_process';
import { errors } from '../../../generated/modules/errors.js';
import type { SvcError } from '../../http/errors.js';
import { classifyMessage, type JsonRpcMessage } from '../protocol/json-rpc.js';
import { LineReader } from '../protocol/line-reader.js';
import { TailBuffer } from './tail-buffer.js';
import { childEnv } from './stdio-env.js';
import { DEFAULT_MAX_MESSAGE_BYTES, type ClientTransport } from './transport.js';
import { checkedStdioOptions, type StdioServerParameters } from './stdio-options.js';

export type { StdioServerParameters } from './stdio-options.js';

/** How long close() waits after ending stdin, and again after SIGTERM, before the next step. */
const CLOSE_STEP_MS = 2000;
/** How long an exit waits for the child's pipes to drain, so answers written just before exiting still count. */
const DRAIN_MS = 500;
/** How much of a piped stderr the exit error keeps (internalDetails.stderr). */
const STDERR_TAIL_BYTES = 2048;

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

function waitAtMost(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export class StdioClientTransport implements ClientTransport {
  onmessage?: ((message: JsonRpcMessage) => void) | undefined;
  onclose?: ((error: SvcError) => void) | undefined;
  private readonly options: Required<Pick<StdioServerParameters, 'command' | 'args' | 'stderr'>> &
    StdioServerParameters;
  private readonly maxLineBytes: number;
  private running: Running | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: StdioServerParameters) {
    const checked = checkedStdioOptions(options, 'StdioClientTransport');
    this.options = checked;
    this.maxLineBytes = checked.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** The running server's process id; undefined before start, after an exit and after close. */
  get pid(): number | undefined {
    return this.running?.child.pid;
  }

  /** Spawns the server unless one runs; rejects with MCP_SERVER_EXITED when it cannot start (ENOENT, EACCES). */
  start(): Promise<void> {
    if (this.closing) return Promise.reject(errors.MCP_CLIENT_CLOSED());
    if (this.running) return Promise.resolve();
    if (!this.starting) {
      const starting = this.spawnChild().finally(() => {
        if (this.starting === starting) this.starting = undefined;
      });
      this.starting = starting;
    }
    return this.starting;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closing) throw errors.MCP_CLIENT_CLOSED();
    const stdin = this.running?.child.stdin;
    if (!stdin || !stdin.writable) {
      throw errors.MCP_SERVER_EXITED({
        message: 'The tool server is not running.',
        details: { exitCode: null, signal: null },
      });
    }
    // JSON.stringify escapes newlines inside strings, so one message is always exactly one line.
    const line = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve, reject) => {
      stdin.write(line, (error) => {
        if (!error) return resolve();
        reject(
          errors.MCP_SERVER_EXITED({
            message: 'The tool server stopped reading its input.',
            details: { exitCode: null, signal: null },
            cause: error,
          }),
        );
      });
    });
  }

  /** Ends stdin and waits up to 2 s for the exit, then SIGTERM, 2 s more, then SIGKILL. Never rejects. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      const running = this.running;
      if (!running) return;
      const { child, exited } = running;
      child.stdin?.end();
      if (!(await waitAtMost(exited, CLOSE_STEP_MS))) {
        child.kill('SIGTERM');
        if (!(await waitAtMost(exited, CLOSE_STEP_MS))) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      // The exit is reported (and `running` cleared) only once the pipes drain; closed means gone now.
      if (this.running === running) this.running = undefined;
    })();
    return this.closing;
  }

  private spawnChild(): Promise<void> {
    const { command, args, cwd, stderr } = this.options;
    const env = childEnv({ env: this.options.env, inheritEnv: this.options.inheritEnv });
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', stderr], windowsHide: true });
      } catch (error) {
        // Arguments spawn refuses outright (a NUL byte, EINVAL for .cmd on Windows) mean it cannot start.
        reject(this.startFailed(error));
        return;
      }
      const tail = new TailBuffer(STDERR_TAIL_BYTES);
      let ended = false;
      const end = (error: SvcError): void => {
        if (ended) return;
        ended = true;
        if (this.running?.child === child) this.running = undefined;
        if (!this.closing) this.onclose?.(error);
      };
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      const lines = new LineReader(this.maxLineBytes, (line) => this.receive(line));

      child.once('spawn', () => {
        this.running = { child, exited };
        resolve();
      });
      child.once('error', (error) => {
        // Before 'spawn' this is the start failing; later ones (a failed kill) are followed by 'exit' anyway.
        if (this.running?.child === child || ended) return;
        ended = true;
        reject(this.startFailed(error));
      });
      child.stdin?.on('error', () => undefined); // EPIPE when the server exits: reported by 'exit'.
      child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
      child.stdout?.on('error', () => undefined);
      child.stdout?.on('data', (chunk: Buffer) => {
        if (ended || lines.push(chunk)) return;
        child.kill('SIGKILL');
        end(
          errors.MCP_SERVER_FAILED({
            message: `The tool server wrote a line longer than ${this.maxLineBytes} bytes; it was stopped.`,
            details: { maxLineBytes: this.maxLineBytes },
          }),
        );
      });
      child.once('exit', (exitCode, signal) => {
        const report = (): void =>
          end(
            errors.MCP_SERVER_EXITED({
              message: `The tool server exited (${signal ?? `code ${exitCode}`}).`,
              details: { exitCode, signal },
              internalDetails: { command, stderr: stderr === 'pipe' ? tail.text() : undefined },
            }),
          );
        // 'close' comes once stdout and stderr drained; a grandchild holding the pipes must not delay it forever.
        const timer = setTimeout(report, DRAIN_MS);
        child.once('close', () => {
          clearTimeout(timer);
          report();
        });
      });
    });
  }

  /** One line from the server: a JSON-RPC message goes to the client, anything else (log noise) is dropped. */
  private receive(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const classified = classifyMessage(value);
    if (classified.kind !== 'invalid') this.onmessage?.(classified.message);
  }

  private startFailed(error: unknown): SvcError {
    const code =
      typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
        ? error.code
        : 'UNKNOWN';
    return errors.MCP_SERVER_EXITED({
      message: `The tool server could not be started (${code}).`,
      details: { exitCode: null, signal: null, spawnError: code },
      internalDetails: { command: this.options.command },
      cause: error,
    });
  }
}
