// svc auth:reseal: after an MFA key rotation (a new key put first in SVC_MFA_KEYS), re-seals every stored
// TOTP secret with the sealing key. Each user goes through MfaService.reencrypt, the one owner of the rule
// (a compare-and-set in the store), in batches of the store's stable scan order (recordsAfter: one read per batch).
//
// Resumable: after each batch the last finished user id is kept in .svc/reseal-state.json with the sealing
// key id and which database it was for, so a run stopped by SIGINT/SIGTERM or a crash continues where it
// stopped, and a run for another rotation or another database starts over. The file only saves work: a row
// already re-sealed answers 'current'. It is removed when a run completes.
//
// A secret that does not open (AUTH_SECRET_UNREADABLE: a value sealed for another user, a key no longer in
// the ring) is reported by user id, never by value; the scan goes on and the run exits 1.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { catalog } from '../../generated/modules/errors.js';
import { MFA_KEYS_ENV, parseMfaKeys } from '../../runtime/auth/mfa/keys.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import type { MfaRecord } from '../../runtime/auth/mfa/store.js';
import { resolveSvcConfig } from '../../runtime/config/svc-config.js';
import { SvcError } from '../../runtime/http/errors.js';
import { databaseKind, openStores, resolvedDatabaseUrl } from '../../runtime/stores/open.js';
import { loadSpec } from '../../spec/index.js';
import { parseCommand } from '../args.js';
import type { CliIo } from '../io.js';
import { SPEC_FILE, projectDir, specFile } from '../project.js';
import { COMMAND_USAGE, UsageError } from '../usage.js';

const COMMAND = 'auth:reseal';
const PREFIX = `svc ${COMMAND}:`;
const DEFAULT_BATCH = 500;
const MAX_BATCH = 10_000;
/** Users re-sealed at once within a batch: a PostgreSQL pool serves them in parallel, PGlite in turn. */
const CONCURRENCY = 8;
/** Unreadable user ids named again in the summary. */
const LISTED_IN_SUMMARY = 20;
/** Where the resume point lives, relative to the project. */
export const RESEAL_STATE_FILE = join('.svc', 'reseal-state.json');
/** The exit code of a run a signal stopped, as a shell reports one the signal killed (128 + its number). */
const SIGNAL_EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** In-process callers only (tests): never exposed on the command line. */
export interface AuthResealOptions {
  /** Aborting it stops the scan after the batch in progress, as SIGINT or SIGTERM does. */
  signal?: AbortSignal;
}

interface Tally {
  resealed: number;
  current: number;
  /** Records changed between the scan and their turn (MFA disabled, or enrolled again, meanwhile). */
  removed: number;
  /** User ids whose secret does not open. */
  unreadable: string[];
}

/** What .svc/reseal-state.json holds: where to continue, and what the runs before this one counted. */
interface ResealState extends Tally {
  /** The sealing key the run re-seals to: a run for another rotation starts over. */
  keyId: string;
  /** Which database the run was for (databaseIdentity): a run against another one starts over. */
  database: string;
  /** The last user id of the last finished batch. */
  after: string;
}

export async function authResealCommand(
  args: string[],
  io: CliIo,
  options: AuthResealOptions = {},
): Promise<number> {
  const { values } = parseCommand(COMMAND, args, { batch: { type: 'string' } }, { min: 0, max: 0 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE[COMMAND]}\n`);
    return 0;
  }
  const batch = batchSize(values.batch);
  const dir = projectDir(values.dir, io.cwd);
  const spec = await loadSpec(specFile(dir), { env: io.env });
  const config = resolveSvcConfig({ ...spec, source: SPEC_FILE }, io.env);
  const url = resolvedDatabaseUrl(config.stores.database, dir, io.env);
  if (url === undefined || databaseKind(url) === 'memory' || url === 'pglite:memory') {
    io.stderr.write(
      `${PREFIX} stores.database is memory or not set: MFA records then live in the running service's memory, ` +
        'and there is no stored secret to re-seal. Set stores.database (DATABASE_URL) to the database to re-seal.\n',
    );
    return 1;
  }
  try {
    const box = new SecretBox({ keys: parseMfaKeys(io.env[MFA_KEYS_ENV]) });
    const stores = await openStores(
      { database: config.stores.database },
      { projectDir: dir, env: io.env, appMigrations: false, sweepIntervalMs: 0 },
    );
    try {
      const { mfa, users, sql } = stores;
      if (mfa === undefined || users === undefined || sql === undefined) {
        throw new Error(`${PREFIX} the stores opened for stores.database have no MFA store.`);
      }
      const service = new MfaService({ store: mfa, box, issuer: config.name, users });
      const total = await countRecords(sql);
      return await reseal({
        io,
        service,
        scan: (after, limit) => mfa.recordsAfter(after, limit),
        total,
        batch,
        keyId: box.sealingKeyId,
        database: databaseIdentity(url),
        stateFile: join(dir, RESEAL_STATE_FILE),
        signal: options.signal,
      });
    } finally {
      await stores.close();
    }
  } catch (error) {
    if (!(error instanceof SvcError) || error.status !== undefined) throw error;
    // A refusal (keys, database, schema): its code, message and what to do, as a refused start prints them.
    const hint = error.hint ?? (catalog as Record<string, { hint?: string }>)[error.code]?.hint;
    io.stderr.write(
      `${PREFIX} ${error.code}: ${error.message}\n${hint === undefined ? '' : `  hint: ${hint}\n`}`,
    );
    return 1;
  }
}

/**
 * Which database a state file was written for: a hash of its URL without the password, so the file holds
 * neither the URL nor anything derived from a password.
 */
function databaseIdentity(url: string): string {
  let identity = url;
  if (databaseKind(url) === 'postgres') {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    identity = parsed.toString();
  }
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

function batchSize(value: string | boolean | undefined): number {
  if (value === undefined) return DEFAULT_BATCH;
  const size = typeof value === 'string' && /^[1-9][0-9]*$/.test(value) ? Number(value) : NaN;
  if (!(size <= MAX_BATCH)) {
    throw new UsageError(
      `${PREFIX} --batch must be a whole number from 1 to ${MAX_BATCH}, got '${String(value)}'.`,
      COMMAND_USAGE[COMMAND] as string,
    );
  }
  return size;
}

/** For progress only: MfaStore has no count, and the scan does not depend on it. */
async function countRecords(sql: { query: (text: string) => Promise<{ rows: unknown[] }> }): Promise<number> {
  const { rows } = await sql.query('SELECT count(*)::int AS n FROM svc_mfa');
  return (rows[0] as { n: number }).n;
}

interface ResealRun {
  io: CliIo;
  service: MfaService;
  scan: (after: string | undefined, limit: number) => Promise<MfaRecord[]>;
  total: number;
  batch: number;
  keyId: string;
  database: string;
  stateFile: string;
  signal: AbortSignal | undefined;
}

async function reseal(run: ResealRun): Promise<number> {
  const { io, total, keyId } = run;
  const state = resumeState(run);
  const done = () => state.resealed + state.current + state.removed + state.unreadable.length;
  if (state.after === undefined) {
    io.stdout.write(`${PREFIX} re-sealing ${total} MFA secrets with key ${keyId}, ${run.batch} at a time.\n`);
  } else {
    io.stdout.write(
      `${PREFIX} continuing after user ${state.after} (${done()}/${total} done by an earlier run) with key ${keyId}.\n`,
    );
  }
  const stop = stopSignal(run.signal);
  try {
    for (;;) {
      if (stop.reason !== undefined) {
        io.stderr.write(
          `${PREFIX} stopped by ${stop.reason} after ${done()}/${total} users; ` +
            `run svc ${COMMAND} again to continue after user ${state.after ?? '(none yet)'}.\n`,
        );
        return SIGNAL_EXIT_CODES[stop.reason] ?? 1;
      }
      const records = await run.scan(state.after, run.batch);
      if (records.length === 0) break;
      await inParallel(records, CONCURRENCY, (record) => resealOne(run, state, record));
      state.after = records[records.length - 1]!.userId;
      saveState(run.stateFile, { ...state, after: state.after, keyId, database: run.database });
      io.stdout.write(`${PREFIX} ${done()}/${Math.max(total, done())} users: ${counts(state)}\n`);
    }
  } catch (error) {
    io.stderr.write(
      `${PREFIX} failed after ${done()}/${total} users; run svc ${COMMAND} again to continue after user ` +
        `${state.after ?? '(none yet)'}.\n`,
    );
    throw error;
  } finally {
    stop.dispose();
  }
  rmSync(run.stateFile, { force: true });
  io.stdout.write(`${PREFIX} done: ${done()} users: ${counts(state)}.\n`);
  if (state.unreadable.length === 0) {
    io.stdout.write(`${PREFIX} every stored secret is sealed with key ${keyId}.\n`);
    return 0;
  }
  io.stderr.write(
    `${PREFIX} ${state.unreadable.length} secret${state.unreadable.length === 1 ? '' : 's'} did not open and ` +
      `kept ${state.unreadable.length === 1 ? 'its' : 'their'} old value, users: ${listed(state.unreadable)}. ` +
      "Keep each one's sealing key in SVC_MFA_KEYS, or have its user enrol again, before dropping old keys.\n",
  );
  return 1;
}

/** The first user ids in order, and how many more: every one was printed as it was found. */
function listed(userIds: readonly string[]): string {
  const sorted = [...userIds].sort();
  const more = sorted.length - LISTED_IN_SUMMARY;
  return sorted.slice(0, LISTED_IN_SUMMARY).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

function counts(tally: Tally): string {
  const removed = tally.removed === 0 ? '' : `, removed or changed meanwhile ${tally.removed}`;
  return `resealed ${tally.resealed}, already current ${tally.current}, unreadable ${tally.unreadable.length}${removed}`;
}

async function resealOne(run: ResealRun, tally: Tally, record: MfaRecord): Promise<void> {
  const { userId } = record;
  try {
    const outcome = await run.service.reseal(record);
    if (outcome === 'resealed') tally.resealed += 1;
    else if (outcome === 'current') tally.current += 1;
    else tally.removed += 1;
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== 'AUTH_SECRET_UNREADABLE') throw error;
    tally.unreadable.push(userId);
    run.io.stderr.write(`${PREFIX} user ${userId}: AUTH_SECRET_UNREADABLE: ${unreadableReason(error)}\n`);
  }
}

/** Why a secret did not open, from the box's internal details: a reason and a key id, never the value. */
function unreadableReason(error: SvcError): string {
  const { reason, keyId } = (error.internalDetails ?? {}) as { reason?: unknown; keyId?: unknown };
  const why = typeof reason === 'string' ? reason : error.message;
  return typeof keyId === 'string' ? `${why}: ${keyId}` : why;
}

/** Runs `work` for each item, at most `limit` at once. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Set once SIGINT or SIGTERM arrives (or `signal` aborts): the scan stops after the batch in progress. The
 * listeners are `once`: a second Ctrl-C ends the process at once, as it would without this command.
 */
function stopSignal(signal: AbortSignal | undefined): { reason: string | undefined; dispose(): void } {
  const stop = { reason: undefined as string | undefined, dispose };
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => (stop.reason ??= name);
    process.once(name, handler);
    return [name, handler] as const;
  });
  const onAbort = () => (stop.reason ??= 'an abort');
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  function dispose() {
    for (const [name, handler] of handlers) process.removeListener(name, handler);
    signal?.removeEventListener('abort', onAbort);
  }
  return stop;
}

/** The counts and resume point of an earlier run for the same key and database, else a fresh start. */
function resumeState(run: ResealRun): Tally & { after: string | undefined } {
  const fresh = { resealed: 0, current: 0, removed: 0, unreadable: [], after: undefined };
  let text: string;
  try {
    text = readFileSync(run.stateFile, 'utf8');
  } catch {
    return fresh;
  }
  const saved = parseState(text);
  const why =
    saved === undefined
      ? 'it is not a state this command wrote'
      : saved.keyId !== run.keyId
        ? `it is for key ${saved.keyId}`
        : saved.database !== run.database
          ? 'it is for another database'
          : undefined;
  if (why === undefined && saved !== undefined) return saved;
  run.io.stdout.write(`${PREFIX} ignoring ${RESEAL_STATE_FILE} (${why}): starting from the first user.\n`);
  return fresh;
}

function parseState(text: string): ResealState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const state = value as Partial<ResealState> | null;
  const isCount = (count: unknown) => Number.isSafeInteger(count) && (count as number) >= 0;
  const valid =
    typeof state === 'object' &&
    state !== null &&
    typeof state.keyId === 'string' &&
    typeof state.database === 'string' &&
    typeof state.after === 'string' &&
    isCount(state.resealed) &&
    isCount(state.current) &&
    isCount(state.removed) &&
    Array.isArray(state.unreadable) &&
    state.unreadable.every((id) => typeof id === 'string');
  return valid ? (state as ResealState) : undefined;
}

/** Written whole then renamed: a crash while writing leaves the previous state, never half a file. */
function saveState(file: string, state: ResealState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, file);
}
