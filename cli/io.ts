// What a command reads from and writes to: the process's own streams, environment and working directory when
// run as `svc`, or others when a caller (a test) runs a command line in its own process.

/** Where a command's output goes. */
export interface OutputStream {
  write(text: string): unknown;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Values for `${VAR}` references and the environment of the services the command starts. */
  env: NodeJS.ProcessEnv;
  /** Where relative paths of the command line are resolved (`--dir`, `--out`, `svc init <dir>`). */
  cwd: string;
}

/** The running process's own streams, environment and directory: what `svc` uses. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** True when output goes to the process's own stdout and stderr, so a child can share them directly. */
export function writesToProcessStreams(io: CliIo): boolean {
  return io.stdout === process.stdout && io.stderr === process.stderr;
}
