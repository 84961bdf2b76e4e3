// svc auth:reseal: after an MFA key rotation (SVC_MFA_KEYS from k1 to k2,k1) every stored TOTP secret is
// re-sealed with k2, in batches, resumably: a run stopped after some batches leaves .svc/reseal-state.json and
// the next run continues after its last user. A value copied from another user's row does not open: it is
// reported by user id (never by value), left as it is, and the run exits 1. 10 000 rows, on PGlite and on
// PostgreSQL, seeded in one INSERT with envelopes sealed beforehand.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SecretBox, openStores, type MfaKey } from 'svckit';
import { authResealCommand, RESEAL_STATE_FILE } from '../../cli/commands/auth-reseal.js';
import { createDatabase, type TestDatabase } from '../backends.js';
import { SVC_BIN, runSvc, tempProject } from './run-svc.js';

const USERS = 10_000;
const key = (id: string): MfaKey => ({ id, material: randomBytes(32) });
const K1 = key('k1');
const K2 = key('k2');
const K3 = key('k3');
const ring = (...keys: MfaKey[]) => keys.map((k) => `${k.id}:${k.material.toString('base64')}`).join(',');

const userId = (n: number) => `user-${String(n).padStart(5, '0')}`;
const secretOf = (n: number) => `JBSWY3DPEHPK3PXP${n}`;
/** Holds user 2's sealed secret: a value copied from another user's row, which must not open. */
const COPIED = userId(3);

const CONFIG = 'svc: 1\nname: app\nversion: 1.0.0\nstores:\n  database: ${DATABASE_URL}\nroutes: {}\n';
const PROGRESS = /^svc auth:reseal: \d+\/\d+ users: /m;

async function storesOf(database: string, migrate = false) {
  return openStores({ database }, { migrate, appMigrations: false, sweepIntervalMs: 0, env: {} });
}

/** 10 000 pending rows sealed with k1, in one statement; user 3 holds user 2's value. */
async function seed(database: string): Promise<Map<string, string>> {
  const box = new SecretBox({ keys: [K1] });
  const sealed = new Map<string, string>();
  for (let n = 1; n <= USERS; n += 1) sealed.set(userId(n), box.seal(userId(n), secretOf(n)));
  sealed.set(COPIED, sealed.get(userId(2)) as string);
  const stores = await storesOf(database, true);
  try {
    await stores.sql!.query(
      `INSERT INTO svc_mfa (user_id, secret, state, created_at)
       SELECT id, secret, 'pending', 0 FROM unnest($1::text[], $2::text[]) AS t(id, secret)`,
      [[...sealed.keys()], [...sealed.values()]],
    );
  } finally {
    await stores.close();
  }
  return sealed;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command in this process; `stopAfterBatches` aborts its signal once that many progress lines came. */
async function reseal(
  project: string,
  env: Record<string, string | undefined>,
  options: { args?: string[]; stopAfterBatches?: number } = {},
): Promise<Run> {
  const stop = new AbortController();
  const out = { stdout: '', stderr: '' };
  let batches = 0;
  const code = await authResealCommand(
    [`--dir=${project}`, ...(options.args ?? [])],
    {
      stdout: {
        write(text: string) {
          out.stdout += text;
          if (PROGRESS.test(text) && ++batches === options.stopAfterBatches) stop.abort();
          return true;
        },
      },
      stderr: { write: (text: string) => (out.stderr += text) },
      env,
      cwd: project,
    },
    { signal: stop.signal },
  );
  return { code, ...out };
}

const progressLines = (run: Run) => run.stdout.split('\n').filter((line) => PROGRESS.test(line));

/** Every row: sealed with k2 and opening, with k2 alone, to its user's own secret; the copied row untouched. */
async function expectAllSealedWithK2(database: string, seeded: Map<string, string>): Promise<void> {
  const stores = await storesOf(database);
  try {
    const { rows } = await stores.sql!.query<{ id: string; secret: string }>(
      'SELECT user_id AS id, secret FROM svc_mfa ORDER BY user_id',
    );
    expect(rows).toHaveLength(USERS);
    const k2Only = new SecretBox({ keys: [K2] });
    const wrong = rows.filter(({ id, secret }, index) =>
      id === COPIED
        ? secret !== seeded.get(COPIED)
        : !secret.startsWith('bka2.k2.') || k2Only.open(id, secret) !== secretOf(index + 1),
    );
    expect(wrong).toEqual([]);
  } finally {
    await stores.close();
  }
}

/** The first run of a rotation: stopped after 3 batches of 1000, with the state file left for the next run. */
async function firstRun(project: string, env: Record<string, string>): Promise<Run> {
  const run = await reseal(project, env, { args: ['--batch=1000'], stopAfterBatches: 3 });
  expect(run.code).toBe(1);
  expect(progressLines(run)).toEqual([
    'svc auth:reseal: 1000/10000 users: resealed 999, already current 0, unreadable 1',
    'svc auth:reseal: 2000/10000 users: resealed 1999, already current 0, unreadable 1',
    'svc auth:reseal: 3000/10000 users: resealed 2999, already current 0, unreadable 1',
  ]);
  expect(run.stderr).toContain(`user ${COPIED}: AUTH_SECRET_UNREADABLE`);
  expect(run.stderr).toContain(
    'after 3000/10000 users; run svc auth:reseal again to continue after user user-03000',
  );
  expect(readState(project)).toMatchObject({
    keyId: 'k2',
    after: 'user-03000',
    resealed: 2999,
    current: 0,
    unreadable: [COPIED],
  });
  return run;
}

/** The run that completes a rotation: every row sealed with k2 but the copied one, which makes it exit 1. */
async function lastRun(
  project: string,
  env: Record<string, string>,
  expected: { continuing: string; batches: number; summary: string },
): Promise<Run> {
  const run = await reseal(project, env, { args: ['--batch=1000'] });
  expect(run.stdout).toContain(expected.continuing);
  expect(progressLines(run)).toHaveLength(expected.batches);
  expect(run.stdout).toContain(`svc auth:reseal: done: 10000 users: ${expected.summary}.`);
  expect(run.stderr).toContain(`1 secret did not open and kept its old value, users: ${COPIED}.`);
  expect(run.code).toBe(1);
  expect(existsSync(join(project, RESEAL_STATE_FILE))).toBe(false);
  return run;
}

/** Reported by user id only: neither the copied value nor a secret is ever printed. */
function expectNoSecretIn(runs: Run[], seeded: Map<string, string>): void {
  for (const run of runs) {
    expect(`${run.stdout}${run.stderr}`).not.toContain(seeded.get(COPIED));
    expect(`${run.stdout}${run.stderr}`).not.toContain(secretOf(2));
  }
}

const readState = (project: string) =>
  JSON.parse(readFileSync(join(project, RESEAL_STATE_FILE), 'utf8')) as Record<string, unknown>;
const writeState = (project: string, state: Record<string, unknown>) =>
  writeFileSync(join(project, RESEAL_STATE_FILE), JSON.stringify(state));

describe('svc auth:reseal', () => {
  // A project each, so that neither backend's run finds the other's state file.
  let pgliteProject: string;
  let postgresProject: string;
  let postgres: TestDatabase;
  beforeAll(async () => {
    pgliteProject = await tempProject({ 'svc.config.yaml': CONFIG });
    postgresProject = await tempProject({ 'svc.config.yaml': CONFIG });
    postgres = await createDatabase();
  });
  afterAll(async () => {
    await postgres.drop();
    for (const project of [pgliteProject, postgresProject]) rmSync(project, { recursive: true, force: true });
  });

  test('PGlite, 10 000 rows: stopped after 3 batches, the next run continues after user 3000', async () => {
    const database = `pglite:${join(pgliteProject, '.svc', 'data')}`;
    const seeded = await seed(database);
    const env = { DATABASE_URL: database, SVC_MFA_KEYS: ring(K2, K1) };
    // Left by a run for another rotation: it must not make this one skip users 1 to 9000.
    writeState(pgliteProject, {
      keyId: 'k1',
      database: 'elsewhere',
      after: 'user-09000',
      resealed: 9000,
      current: 0,
      removed: 0,
      unreadable: [],
    });
    const first = await firstRun(pgliteProject, env);
    expect(first.stdout).toContain(
      'ignoring .svc/reseal-state.json (it is for key k1): starting from the first user',
    );
    const last = await lastRun(pgliteProject, env, {
      continuing: 'continuing after user user-03000 (3000/10000 done by an earlier run)',
      batches: 7,
      summary: 'resealed 9999, already current 0, unreadable 1',
    });
    expectNoSecretIn([first, last], seeded);
    await expectAllSealedWithK2(database, seeded);
  });

  test('PostgreSQL, 10 000 rows: after a crash that lost a batch, the rows it re-sealed count as current', async () => {
    const seeded = await seed(postgres.url);
    const env = { DATABASE_URL: postgres.url, SVC_MFA_KEYS: ring(K2, K1) };
    const first = await firstRun(postgresProject, env);
    // As if it crashed after re-sealing batch 3 but before saving the state: the file still says user 2000.
    writeState(postgresProject, { ...readState(postgresProject), after: 'user-02000', resealed: 1999 });
    const last = await lastRun(postgresProject, env, {
      continuing: 'continuing after user user-02000 (2000/10000 done by an earlier run)',
      batches: 8,
      summary: 'resealed 8999, already current 1000, unreadable 1',
    });
    expectNoSecretIn([first, last], seeded);
    await expectAllSealedWithK2(postgres.url, seeded);
  });

  // The one real process, on the rows re-sealed above (now to k3): Ctrl-C stops it after the batch in progress, with the state kept for the next run.
  test('the svc binary stops on SIGINT after its batch, exit code 130, and keeps the state file', async () => {
    const child = spawn(
      process.execPath,
      [SVC_BIN, 'auth:reseal', `--dir=${postgresProject}`, '--batch=100'],
      {
        env: { ...process.env, DATABASE_URL: postgres.url, SVC_MFA_KEYS: ring(K3, K2, K1) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Once: a second SIGINT ends the process at once, as it should.
      if (!interrupted && PROGRESS.test(stdout)) interrupted = child.kill('SIGINT');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toContain('stopped by SIGINT after');
    expect(code).toBe(130);
    const state = JSON.parse(readFileSync(join(postgresProject, RESEAL_STATE_FILE), 'utf8')) as {
      keyId: string;
      after: string;
    };
    expect(state.keyId).toBe('k3');
    expect(state.after < userId(USERS)).toBe(true);
  });

  test('without SVC_MFA_KEYS it refuses with AUTH_SECRET_BOX_KEY_INVALID and its hint, touching nothing', async () => {
    const run = await runSvc(['auth:reseal', `--dir=${postgresProject}`], {
      env: { DATABASE_URL: postgres.url, SVC_MFA_KEYS: undefined },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('svc auth:reseal: AUTH_SECRET_BOX_KEY_INVALID: SVC_MFA_KEYS is empty');
    expect(run.stderr).toContain('hint: set SVC_MFA_KEYS=<id>:<base64 of 32+ random bytes>');
  });

  test('with the stores in memory there is nothing to re-seal: exit 1 saying so', async () => {
    const run = await runSvc(['auth:reseal', `--dir=${postgresProject}`], {
      env: { DATABASE_URL: 'memory', SVC_MFA_KEYS: ring(K2, K1) },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('stores.database is memory or not set');
  });

  test('refuses a --batch that is not a whole number from 1 to 10000', async () => {
    for (const batch of ['0', '-5', '2.5', 'many', '10001']) {
      const run = await runSvc(['auth:reseal', `--dir=${postgresProject}`, `--batch=${batch}`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--batch must be a whole number from 1 to 10000');
      expect(run.stderr).toContain('Usage: svc auth:reseal');
    }
  });
});
