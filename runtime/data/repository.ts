// repository(): the everyday statements on one table of the application (insert, get, update, delete, a
// keyset-paged list), written once, in plain SQL that reads the same on PostgreSQL and PGlite. Not an ORM:
// no relations, no query builder; anything else is a `sql.query()` away, on the same client. Rows come
// back keyed by property (each column selected `AS "property"`), with the values the driver gives (text and
// uuid as strings, integers and bigints as numbers, timestamptz as Date, json as parsed values).
//
// A repository declared with a `scope` column is bound to it: every call names the scope value (the
// signed-in user, the tenant) and every statement filters on it, so another scope's row is as absent as a
// missing one: get answers undefined, update undefined, delete false, and list never shows it. So is an id or
// scope its column cannot hold (text that is not a uuid, a number past an integer's range): no row has it.
//
// A repository declared with a `softDelete` column deletes by stamping it (`now()`) instead, and every
// statement filters on it being NULL, so a row marked deleted is as absent as another scope's.
import { errors } from '../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import type { SqlQueryable } from '../stores/sql/client.js';
import { sqlState } from '../stores/sql/unavailable.js';
import { propertyName, snakeCase, sqlName, sqlTableName } from './identifiers.js';
import { decodeCursor, encodeCursor, listFingerprint } from './keyset-cursor.js';

/** A value naming a row or a scope: a uuid or other text, a number, a bigint. */
export type KeyValue = string | number | bigint;

/**
 * The row's properties, each stored in the column of its snake_case name (`createdAt` → `created_at`); or
 * an object from property to column name, for columns named otherwise.
 */
export type RepositoryColumns<Row> =
  readonly (keyof Row & string)[] | { readonly [Property in keyof Row & string]?: string };

export interface RepositoryOptions<Row extends object> {
  /** The table: `notes`, or `schema.notes`. */
  table: string;
  columns: RepositoryColumns<Row>;
  /** The primary-key property. Default `id`. */
  id?: keyof Row & string;
  /** The property whose value every call names (an owner, a tenant); rows of other values are invisible. */
  scope?: keyof Row & string;
  /**
   * The order of list(): by a property whose column is NOT NULL, then by id in the same direction (so the
   * order is total and pages never overlap). Default by id, ascending.
   */
  order?: { by: keyof Row & string; direction?: 'asc' | 'desc' };
  /**
   * The property of a nullable timestamptz column (`deletedAt` → `deleted_at`) that marks a row deleted:
   * delete() sets it to now() instead of removing the row, and get, update and list never see a marked row.
   * Neither insert nor update may set it. Not the id, the scope nor order.by.
   */
  softDelete?: keyof Row & string;
}

export interface ListOptions<Row> {
  /** Rows per page, 1 or more. */
  limit: number;
  /**
   * The `nextCursor` of the previous page (null or undefined: the first page); DATA_CURSOR_INVALID when it is
   * not one of this list's.
   */
  cursor?: string | null | undefined;
  /**
   * Instead of `cursor`: start after this row (its order property and id are read). While the row exists,
   * its stored order value is used, to the column's full precision (a soft-deleted row still exists); once
   * deleted, the value given.
   */
  after?: Partial<Row>;
}

export interface Page<Row> {
  items: Row[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A table without scope. */
export interface Repository<Row extends object> {
  /** Inserts one row; properties left out take the column's DEFAULT. Answers the row as stored. */
  insert(values: Partial<Row>): Promise<Row>;
  get(id: KeyValue): Promise<Row | undefined>;
  /** Changes the given properties only; undefined when no such row. An empty patch changes nothing. */
  update(id: KeyValue, patch: Partial<Row>): Promise<Row | undefined>;
  /** True when a row was deleted; with `softDelete`, when a live row was marked deleted. */
  delete(id: KeyValue): Promise<boolean>;
  list(options: ListOptions<Row>): Promise<Page<Row>>;
  /** The same repository on another client: `repo.on(tx)` inside `sql.transaction(async (tx) => …)`. */
  on(db: SqlQueryable): Repository<Row>;
}

/** A table whose rows each belong to one scope value; every call names it first. */
export interface ScopedRepository<Row extends object> {
  /** Inserts one row in `scope`; properties left out take the column's DEFAULT. Answers the row as stored. */
  insert(scope: KeyValue, values: Partial<Row>): Promise<Row>;
  get(scope: KeyValue, id: KeyValue): Promise<Row | undefined>;
  /** Changes the given properties only; undefined when no such row in `scope`. */
  update(scope: KeyValue, id: KeyValue, patch: Partial<Row>): Promise<Row | undefined>;
  /** True when a row of `scope` was deleted; with `softDelete`, when a live row was marked deleted. */
  delete(scope: KeyValue, id: KeyValue): Promise<boolean>;
  list(scope: KeyValue, options: ListOptions<Row>): Promise<Page<Row>>;
  /** The same repository on another client: `repo.on(tx)` inside `sql.transaction(async (tx) => …)`. */
  on(db: SqlQueryable): ScopedRepository<Row>;
}

/** The options with the row's type erased: what the checks below read. */
type AnyOptions = RepositoryOptions<Record<string, unknown>>;

const REPOSITORY_OPTIONS = optionKeys<AnyOptions>({
  table: true,
  columns: true,
  id: true,
  scope: true,
  order: true,
  softDelete: true,
});
const ORDER_OPTIONS = optionKeys<NonNullable<AnyOptions['order']>>({
  by: true,
  direction: true,
});
const LIST_OPTIONS = optionKeys<ListOptions<object>>({ limit: true, cursor: true, after: true });

interface Column {
  property: string;
  /** Quoted. */
  column: string;
}

/** Everything a repository's statements need, checked once when it is made. */
interface Plan {
  owner: string;
  table: string;
  columns: Map<string, Column>;
  /** `"title" AS "title", "created_at" AS "createdAt", …` */
  select: string;
  id: Column;
  scope: Column | undefined;
  /** The column whose NULL means a live row; undefined when delete() removes rows. */
  softDelete: Column | undefined;
  orderBy: Column;
  /** The order column, then the id; the id alone when it is the order column. */
  keys: Column[];
  /** `"created_at"::text AS "svc:position:0", "id"::text AS "svc:position:1"`: a row's position, as text. */
  positions: string;
  direction: 'ASC' | 'DESC';
  fingerprint: string;
}

/**
 * The alias of a row's n-th position value. The colon keeps it apart from every property, whose names are
 * letters, digits and underscores.
 */
function positionAlias(index: number): string {
  return `svc:position:${index}`;
}

function columnsOf(owner: string, columns: unknown): Map<string, Column> {
  const entries: [string, unknown][] = Array.isArray(columns)
    ? columns.map((property: unknown) => [
        propertyName(owner, 'columns', property),
        snakeCase(property as string),
      ])
    : typeof columns === 'object' && columns !== null
      ? Object.entries(columns)
      : [];
  if (entries.length === 0) {
    throw invalidOption(
      owner,
      'columns',
      "the row's properties (a list), or an object from property to column",
    );
  }
  const byProperty = new Map<string, Column>();
  const seen = new Map<string, string>();
  for (const [property, name] of entries) {
    propertyName(owner, `columns.${property}`, property);
    const column = sqlName(owner, `columns.${property}`, name);
    const twin = seen.get(column);
    if (twin !== undefined || byProperty.has(property)) {
      throw invalidOption(
        owner,
        `columns.${property}`,
        'a column of its own',
        `${twin ?? property} names ${column} too`,
      );
    }
    seen.set(column, property);
    byProperty.set(property, { property, column });
  }
  return byProperty;
}

function columnNamed(plan: Pick<Plan, 'owner' | 'columns'>, option: string, property: unknown): Column {
  const column = typeof property === 'string' ? plan.columns.get(property) : undefined;
  if (column === undefined) {
    throw invalidOption(
      plan.owner,
      option,
      `one of the columns (${[...plan.columns.keys()].join(', ')})`,
      `got ${JSON.stringify(property)}`,
    );
  }
  return column;
}

/** The option among `roles` that names `column` already, if any. */
function roleOf(column: Column, roles: Record<string, Column | undefined>): string | undefined {
  return Object.entries(roles).find(([, taken]) => taken === column)?.[0];
}

function planFor(options: AnyOptions): Plan {
  if (typeof options !== 'object' || options === null)
    throw invalidOption('repository()', 'options', 'an object');
  const owner = `repository(${JSON.stringify(options.table)})`;
  rejectUnknownOptions(options, REPOSITORY_OPTIONS, owner);
  const table = sqlTableName(owner, options.table);
  const columns = columnsOf(owner, options.columns);
  const named = { owner, columns };
  const id = columnNamed(named, 'id', options.id ?? 'id');
  const scope = options.scope === undefined ? undefined : columnNamed(named, 'scope', options.scope);
  if (scope === id) throw invalidOption(owner, 'scope', 'a column other than the id');
  const order: NonNullable<AnyOptions['order']> = options.order ?? { by: id.property };
  rejectUnknownOptions(order, ORDER_OPTIONS, `${owner}: order`);
  const orderBy = columnNamed(named, 'order.by', order.by);
  const direction = order.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') {
    throw invalidOption(owner, 'order.direction', "'asc' or 'desc'", `got ${JSON.stringify(direction)}`);
  }
  const softDelete =
    options.softDelete === undefined ? undefined : columnNamed(named, 'softDelete', options.softDelete);
  // The id and scope name a row, and a list pages by the order column: none can be a NULL-or-time mark.
  const taken =
    softDelete === undefined
      ? undefined
      : roleOf(softDelete, { 'the id': id, 'the scope': scope, 'order.by': orderBy });
  if (taken !== undefined) {
    throw invalidOption(
      owner,
      'softDelete',
      'a column other than the id, the scope and order.by',
      `got ${JSON.stringify(softDelete!.property)}, which is ${taken}`,
    );
  }
  const select = [...columns.values()].map(({ property, column }) => `${column} AS "${property}"`).join(', ');
  const keys = orderBy === id ? [id] : [orderBy, id];
  return {
    owner,
    table,
    columns,
    select,
    id,
    scope,
    softDelete,
    orderBy,
    keys,
    positions: keys.map((key, index) => `${key.column}::text AS "${positionAlias(index)}"`).join(', '),
    direction: direction === 'asc' ? 'ASC' : 'DESC',
    fingerprint: listFingerprint([table, orderBy.column, direction]),
  };
}

function checkKey(plan: Plan, method: string, name: string, value: unknown): KeyValue {
  if (
    typeof value === 'string' ||
    typeof value === 'bigint' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
    return value;
  throw invalidOption(
    `${plan.owner}.${method}()`,
    name,
    'a string, a finite number or a bigint',
    `got ${String(value)}`,
  );
}

/** Why `values` may not name `column`: the scope, the id or the soft-delete mark. */
function whyRefused(plan: Plan, column: Column): string {
  if (column === plan.scope) return 'the scope is the first argument';
  if (column === plan.softDelete) return 'only delete() marks a row deleted';
  return 'a row keeps its id';
}

/**
 * The columns and values of `values`, undefined ones left out; the id, the scope and the soft-delete mark
 * only where allowed.
 */
function assignments(
  plan: Plan,
  method: string,
  values: unknown,
  refused: readonly (Column | undefined)[],
): [Column, unknown][] {
  const owner = `${plan.owner}.${method}()`;
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw invalidOption(owner, 'values', 'an object of row properties');
  }
  const pairs: [Column, unknown][] = [];
  for (const [property, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const column = columnNamed(plan, `values.${property}`, property);
    if (refused.includes(column)) {
      throw invalidOption(owner, `values.${property}`, 'left out', whyRefused(plan, column));
    }
    pairs.push([column, value]);
  }
  return pairs;
}

/** SQLSTATE class 22, data exception: a value its column cannot hold ('x' for a uuid, 2^40 for an integer). */
function isDataException(error: unknown): boolean {
  return sqlState(error)?.startsWith('22') === true;
}

/** Whether each statement on `db` stands alone (a client: stores.sql), rather than inside a transaction. */
function isClient(db: SqlQueryable): boolean {
  return typeof (db as { transaction?: unknown }).transaction === 'function';
}

const SAVEPOINT = 'svc_repository';
const NO_TRANSACTION = '25P01';

/**
 * What `run()` answers, or what `refused(error)` makes of a data exception: the database could not read a
 * value as its column's type. On a client the failed statement stands alone. Inside a transaction it runs
 * under a savepoint, rolled back to on a data exception: PostgreSQL aborts the whole transaction on an
 * error, and answering "no such row" from a dead transaction would let the caller go on to a COMMIT that
 * silently rolls everything back.
 */
async function unlessDataException<T>(
  db: SqlQueryable,
  run: () => Promise<T>,
  refused: (error: unknown) => Promise<T>,
): Promise<T> {
  const plain = async () => {
    try {
      return await run();
    } catch (error) {
      if (!isDataException(error)) throw error;
      return refused(error);
    }
  };
  if (isClient(db)) return plain();
  try {
    await db.query(`SAVEPOINT ${SAVEPOINT}`);
  } catch (error) {
    // A queryable of the caller's own that is not in a transaction: its statements stand alone too.
    if (sqlState(error) === NO_TRANSACTION) return plain();
    throw error;
  }
  let result: T;
  try {
    result = await run();
  } catch (error) {
    if (!isDataException(error)) throw error;
    await db.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    await db.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return refused(error);
  }
  await db.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  return result;
}

/** `$n` placeholders numbered after those already in `params`, which receives the values. */
function placeholder(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

class Statements {
  constructor(private readonly plan: Plan) {}

  /**
   * `id = $n [AND scope = $m] [AND deleted_at IS NULL]` (the id left out when undefined, the others when the
   * repository has none), its values pushed onto params.
   */
  private whereRow(params: unknown[], scope: KeyValue | undefined, id: KeyValue | undefined): string {
    const { plan } = this;
    const conditions: string[] = [];
    if (id !== undefined) conditions.push(`${plan.id.column} = ${placeholder(params, id)}`);
    if (plan.scope !== undefined) conditions.push(`${plan.scope.column} = ${placeholder(params, scope)}`);
    if (plan.softDelete !== undefined) conditions.push(this.live());
    return conditions.join(' AND ');
  }

  /** The condition of a row not marked deleted. */
  private live(): string {
    return `${this.plan.softDelete!.column} IS NULL`;
  }

  /**
   * Whether the database can read `id` (when given) and `scope` as their columns' types: a statement that
   * reads no row, for telling a bad key apart from a bad value after a data exception.
   */
  private async keysReadable(db: SqlQueryable, scope: KeyValue | undefined, id?: KeyValue): Promise<boolean> {
    const params: unknown[] = [];
    const where = this.whereRow(params, scope, id);
    if (where === '') return true;
    return unlessDataException(
      db,
      async () => {
        await db.query(`SELECT 1 FROM ${this.plan.table} WHERE ${where} LIMIT 0`, params);
        return true;
      },
      async () => false,
    );
  }

  async insert(db: SqlQueryable, scope: KeyValue | undefined, values: unknown): Promise<unknown> {
    const { plan } = this;
    const pairs = assignments(plan, 'insert', values, [plan.scope, plan.softDelete]);
    if (plan.scope !== undefined) pairs.push([plan.scope, scope]);
    const params: unknown[] = [];
    const sql =
      pairs.length === 0
        ? `INSERT INTO ${plan.table} DEFAULT VALUES RETURNING ${plan.select}`
        : `INSERT INTO ${plan.table} (${pairs.map(([column]) => column.column).join(', ')}) ` +
          `VALUES (${pairs.map(([, value]) => placeholder(params, value)).join(', ')}) RETURNING ${plan.select}`;
    const { rows } = await db.query(sql, params);
    return rows[0];
  }

  async get(db: SqlQueryable, scope: KeyValue | undefined, id: KeyValue): Promise<unknown> {
    const params: unknown[] = [];
    const where = this.whereRow(params, scope, id);
    return unlessDataException(
      db,
      async () => {
        const { rows } = await db.query(
          `SELECT ${this.plan.select} FROM ${this.plan.table} WHERE ${where}`,
          params,
        );
        return rows[0];
      },
      async () => undefined, // an id or scope its column cannot hold: no row has it
    );
  }

  async update(
    db: SqlQueryable,
    scope: KeyValue | undefined,
    id: KeyValue,
    patch: unknown,
  ): Promise<unknown> {
    const { plan } = this;
    const pairs = assignments(plan, 'update', patch, [plan.scope, plan.id, plan.softDelete]);
    if (pairs.length === 0) return this.get(db, scope, id);
    const params: unknown[] = [];
    const set = pairs.map(([column, value]) => `${column.column} = ${placeholder(params, value)}`).join(', ');
    const where = this.whereRow(params, scope, id);
    return unlessDataException(
      db,
      async () => {
        const { rows } = await db.query(
          `UPDATE ${plan.table} SET ${set} WHERE ${where} RETURNING ${plan.select}`,
          params,
        );
        return rows[0];
      },
      // No row has an unreadable id or scope; a value of the patch its column cannot hold is the caller's.
      async (error) => {
        if (await this.keysReadable(db, scope, id)) throw error;
        return undefined;
      },
    );
  }

  /**
   * DELETE, or with softDelete one UPDATE of a live row only: of two deletes racing, the database lets one
   * mark it, and the other then finds no live row.
   */
  async delete(db: SqlQueryable, scope: KeyValue | undefined, id: KeyValue): Promise<boolean> {
    const { plan } = this;
    const params: unknown[] = [];
    const where = this.whereRow(params, scope, id);
    const sql =
      plan.softDelete === undefined
        ? `DELETE FROM ${plan.table} WHERE ${where}`
        : `UPDATE ${plan.table} SET ${plan.softDelete.column} = now() WHERE ${where}`;
    return unlessDataException(
      db,
      async () => (await db.query(sql, params)).rowCount > 0,
      async () => false,
    );
  }

  /** The order values of `row`: the order property, then the id (once when they are the same column). */
  private keyOf(row: Record<string, unknown>): unknown[] {
    return this.plan.keys.map((key) => row[key.property]);
  }

  /**
   * `(by, id) > (…)` (`<` descending) for a list starting after a position: a cursor's texts, or a row's
   * values, its params pushed. For a row, the stored order value is read by its id while it exists: the
   * value given may have lost precision on its way through JavaScript (a timestamptz's microseconds). A row
   * marked deleted still exists and keeps its place, so it is read too.
   */
  private startAfter(
    params: unknown[],
    scopeParam: string | undefined,
    options: ListOptions<object>,
  ): string | undefined {
    const { plan } = this;
    const cursor = options.cursor ?? undefined;
    if (cursor !== undefined && options.after !== undefined) {
      throw invalidOption(`${plan.owner}.list()`, 'after', 'left out when a cursor is given');
    }
    let right: string;
    if (cursor !== undefined) {
      const position = decodeCursor(plan.fingerprint, cursor, plan.keys.length);
      right = position.map((value) => placeholder(params, value)).join(', ');
    } else if (options.after !== undefined) {
      const key = this.keyOf(options.after as Record<string, unknown>);
      if (key.some((value) => value === undefined || value === null)) {
        const needed = plan.keys.map((column) => column.property).join(' and ');
        throw invalidOption(`${plan.owner}.list()`, 'after', `a row with ${needed}`);
      }
      if (key.length === 1) right = placeholder(params, key[0]);
      else {
        const id = placeholder(params, key[1]);
        const given = placeholder(params, key[0]);
        const inScope = scopeParam === undefined ? '' : ` AND ${plan.scope!.column} = ${scopeParam}`;
        const stored = `SELECT ${plan.orderBy.column} FROM ${plan.table} WHERE ${plan.id.column} = ${id}${inScope}`;
        right = `COALESCE((${stored}), ${given}), ${id}`;
      }
    } else return undefined;
    // A row value comparison: (by, id) < ($1, $2) is "strictly after" in descending order, one index range.
    const operator = plan.direction === 'DESC' ? '<' : '>';
    const left = plan.keys.map((column) => column.column).join(', ');
    return plan.keys.length === 1 ? `${left} ${operator} ${right}` : `(${left}) ${operator} (${right})`;
  }

  async list(
    db: SqlQueryable,
    scope: KeyValue | undefined,
    options: ListOptions<object>,
  ): Promise<Page<unknown>> {
    const { plan } = this;
    const owner = `${plan.owner}.list()`;
    if (typeof options !== 'object' || options === null) throw invalidOption(owner, 'options', 'an object');
    rejectUnknownOptions(options, LIST_OPTIONS, owner);
    const { limit } = options;
    // limit + 1 must still be a whole number a bigint LIMIT reads.
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
      throw invalidOption(
        owner,
        'limit',
        'a whole number, 1 or more (at most 2^53 - 1)',
        `got ${String(limit)}`,
      );
    }
    const params: unknown[] = [];
    const conditions: string[] = [];
    const scopeParam = plan.scope === undefined ? undefined : placeholder(params, scope);
    if (scopeParam !== undefined) conditions.push(`${plan.scope!.column} = ${scopeParam}`);
    if (plan.softDelete !== undefined) conditions.push(this.live());
    const after = this.startAfter(params, scopeParam, options);
    if (after !== undefined) conditions.push(after);
    const sql =
      `SELECT ${plan.select}, ${plan.positions} FROM ${plan.table}` +
      (conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`) +
      ` ORDER BY ${plan.keys.map((column) => `${column.column} ${plan.direction}`).join(', ')}` +
      ` LIMIT ${placeholder(params, limit + 1)}`; // one more than asked: is there a next page?
    const rows = await unlessDataException(
      db,
      async () => (await db.query<Record<string, unknown>>(sql, params)).rows,
      async (error) => {
        // A scope its column cannot hold has no rows. Otherwise the position holds a value its column cannot
        // hold, e.g. a forged cursor with text where a uuid belongs: the request was wrong, not the database.
        if (!(await this.keysReadable(db, scope))) return [];
        if (after !== undefined) throw errors.DATA_CURSOR_INVALID();
        throw error;
      },
    );
    const positions = rows.map((row) => {
      const position = plan.keys.map((_key, index) => row[positionAlias(index)]);
      for (const index of plan.keys.keys()) delete row[positionAlias(index)];
      return position;
    });
    const items = rows.slice(0, limit);
    const last = positions[items.length - 1];
    if (rows.length <= limit || last === undefined) return { items, nextCursor: null };
    const nextCursor = encodeCursor(plan.fingerprint, last);
    if (nextCursor === undefined) {
      throw invalidOption(
        owner,
        'order.by',
        'a NOT NULL column, as is the id',
        `a row holds ${this.keyOf(items[items.length - 1]!)
          .map((value) => JSON.stringify(value))
          .join(', ')}`,
      );
    }
    return { items, nextCursor };
  }
}

function unscoped<Row extends object>(plan: Plan, statements: Statements, db: SqlQueryable): Repository<Row> {
  const key = (method: string, id: unknown) => checkKey(plan, method, 'id', id);
  return {
    insert: async (values) => (await statements.insert(db, undefined, values)) as Row,
    get: async (id) => (await statements.get(db, undefined, key('get', id))) as Row | undefined,
    update: async (id, patch) =>
      (await statements.update(db, undefined, key('update', id), patch)) as Row | undefined,
    delete: (id) => statements.delete(db, undefined, key('delete', id)),
    list: async (options) => (await statements.list(db, undefined, options)) as Page<Row>,
    on: (other) => unscoped<Row>(plan, statements, other),
  };
}

function scoped<Row extends object>(
  plan: Plan,
  statements: Statements,
  db: SqlQueryable,
): ScopedRepository<Row> {
  const scopeOf = (method: string, scope: unknown) => checkKey(plan, method, 'scope', scope);
  const key = (method: string, id: unknown) => checkKey(plan, method, 'id', id);
  return {
    insert: async (scope, values) => (await statements.insert(db, scopeOf('insert', scope), values)) as Row,
    get: async (scope, id) =>
      (await statements.get(db, scopeOf('get', scope), key('get', id))) as Row | undefined,
    update: async (scope, id, patch) =>
      (await statements.update(db, scopeOf('update', scope), key('update', id), patch)) as Row | undefined,
    delete: (scope, id) => statements.delete(db, scopeOf('delete', scope), key('delete', id)),
    list: async (scope, options) => (await statements.list(db, scopeOf('list', scope), options)) as Page<Row>,
    on: (other) => scoped<Row>(plan, statements, other),
  };
}

/**
 * A repository of `Row`s on `options.table` through `db` (`stores.sql`, a transaction, any SqlQueryable).
 * Names are checked here, once: an invalid table, column or option throws OPTION_INVALID / OPTION_UNKNOWN.
 */
export function repository<Row extends object>(
  db: SqlQueryable,
  options: RepositoryOptions<Row> & { scope: keyof Row & string },
): ScopedRepository<Row>;
export function repository<Row extends object>(
  db: SqlQueryable,
  options: RepositoryOptions<Row> & { scope?: undefined },
): Repository<Row>;
export function repository<Row extends object>(
  db: SqlQueryable,
  options: RepositoryOptions<Row>,
): Repository<Row> | ScopedRepository<Row> {
  if (typeof db !== 'object' || db === null || typeof db.query !== 'function') {
    throw invalidOption('repository()', 'db', 'a SQL client (stores.sql) or a transaction');
  }
  const plan = planFor(options as unknown as AnyOptions);
  const statements = new Statements(plan);
  return plan.scope === undefined ? unscoped<Row>(plan, statements, db) : scoped<Row>(plan, statements, db);
}
