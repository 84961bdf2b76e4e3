// Serve modes: ways to run an app other than listening on HTTP, provided by feature plugins. A command that
// launches the app's entry (`svc mcp`) names the mode in SVC_SERVE_MODE; the entry's serve() then finds the
// mode a registered plugin published under that name (bucket 'app:serve-modes') and runs it, so the kernel
// needs to know no feature.
import type { App } from './app.js';

/** Set by the command that launches an app's entry to the name of the serve mode serve() should run. */
export const SERVE_MODE_ENV = 'SVC_SERVE_MODE';

/** What serve() returns, in any mode: where the app is served, and how to stop it. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

export interface ServeMode {
  /** The name a launching command asks for in SVC_SERVE_MODE (e.g. 'mcp-stdio', set by `svc mcp`). */
  readonly name: string;
  /** True when the mode speaks its protocol on stdout: serve()'s start-up lines then go to stderr. */
  readonly usesStdout: boolean;
  /** Serves the booted app; `log` prints start-up lines. */
  start(app: App, log: (line: string) => void): Promise<Served>;
}

/** The serve mode the launching command asked for, or undefined for the default (listen on HTTP). */
export function requestedServeMode(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = env[SERVE_MODE_ENV];
  return name === undefined || name === '' ? undefined : name;
}

/** The mode a plugin published under `name`; an Error naming it when no registered plugin did. */
export function findServeMode(app: App, name: string): ServeMode {
  const modes = app.metadata.list('app:serve-modes');
  const mode = modes.find((candidate) => candidate.name === name);
  if (mode !== undefined) return mode;
  const known =
    modes.length === 0 ? 'none is registered' : `registered: ${modes.map((m) => m.name).join(', ')}`;
  throw new Error(
    `serve(): this process was started to serve as "${name}" (${SERVE_MODE_ENV}), but no registered plugin ` +
      `provides that mode (${known}).`,
  );
}
