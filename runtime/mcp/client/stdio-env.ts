// The environment of a spawned tool server: only what a program needs to run and
// behave like its parent (PATH, HOME, locale, temp dirs), never the parent's secrets (tokens, database URLs),
// unless the application forwards them by name (`inheritEnv`) or sets them (`env`).

/**
 * Parent variables every spawned server gets. Why each:
 * - PATH: find the interpreter and tools the server runs (`npx`, `python`); spawn also resolves `command` on it.
 * - HOME: per-user config and caches (npm, pip, git) live under it.
 * - LANG, LANGUAGE, LC_*: locale, so text encoding, messages and formats match the parent.
 * - TZ: the time zone, so the server's local times match the parent's.
 * - TMPDIR, TMP, TEMP: where temporary files go (TMPDIR on POSIX, TMP/TEMP on Windows and some tools).
 * - Windows only (absent elsewhere, so they change nothing there): USERPROFILE, HOMEDRIVE, HOMEPATH, APPDATA,
 *   LOCALAPPDATA are the home directory and per-user config; SystemRoot, SystemDrive, windir, ComSpec and
 *   PATHEXT are needed for a Windows program to start at all (system DLLs, sockets, resolving `npx.cmd`).
 * Deliberately left out: USER/LOGNAME/SHELL/TERM (identity and terminal; stdout is a protocol pipe, not a
 * terminal), proxy and certificate variables (forward them with `inheritEnv` when a server needs them).
 */
export const DEFAULT_INHERITED_ENV: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_ADDRESS',
  'LC_COLLATE',
  'LC_CTYPE',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NAME',
  'LC_NUMERIC',
  'LC_PAPER',
  'LC_TELEPHONE',
  'LC_TIME',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
]);

export interface ChildEnvOptions {
  /** Set in the child, over anything inherited. */
  env?: Record<string, string> | undefined;
  /** More parent variables to forward by name; `true` forwards the whole parent environment. */
  inheritEnv?: true | readonly string[] | undefined;
}

/** The child's environment: the default names, then `inheritEnv`, then `env`, read from `parent` now. */
export function childEnv(
  options: ChildEnvOptions,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const result: Record<string, string> = {};
  const copy = (name: string): void => {
    const value = parent[name];
    if (value !== undefined) result[name] = value;
  };
  if (options.inheritEnv === true) {
    for (const name of Object.keys(parent)) copy(name);
  } else {
    for (const name of DEFAULT_INHERITED_ENV) copy(name);
    for (const name of options.inheritEnv ?? []) copy(name);
  }
  Object.assign(result, options.env);
  return result;
}
