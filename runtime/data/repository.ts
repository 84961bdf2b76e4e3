// repository(): the everyday statements on one table of the application (insert, get, update, delete, a
// keyset-paged list), written once, in plain SQL that reads the same on PostgreSQL and PGlite. Not an ORM:
// no relations, no query builder; anything else is a `sql.query()` away, on the same client. Rows come
// back keyed by property (each column selected `AS "property"`), with the values the driver gives (text and
// uuid as strings, integers and bigints as numbers, timestamptz as Date, json as parsed values).
//
// A repository declared with a `scope` column is bound to it: every call names the scope value (the
// signed-in user, the tenant) and every statement filters on it, so another scope's row is as absent as a
// missing one: get answers undefined, update undefined, delete false, and list never shows it.
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
}

export interface ListOptions<Row> {
  /** Rows per page, 1 or more. */
  limit: number;
  /**
   * The `nextCursor` of the previous page (null or undefined: the first page); DATA_CURSOR_INVALID when it is
   * not one of this list's.
   */
  cursor?: string | null;
  /** Instead of `cursor`: start after this row (its order property and id are read). */
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
  /** True when a row was deleted. */
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
  /** True when a row of `scope` was deleted. */
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
  orderBy: Column;
  direction: 'ASC' | 'DESC';
  fingerprint: string;
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
  const select = [...columns.values()].map(({ property, column }) => `${column} AS "${property}"`).join(', ');
  return {
    owner,
    table,
    columns,
    select,
    id,
    scope,
    orderBy,
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

/** The columns and values of `values`, undefined ones left out; the id and the scope only where allowed. */
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
      const why = column === plan.scope ? 'the scope is the first argument' : 'a row keeps its id';
      throw invalidOption(owner, `values.${property}`, 'left out', why);
    }
    pairs.push([column, value]);
  }
  return pairs;
}

/** `$n` placeholders numbered after those already in `params`, which receives the values. */
function placeholder(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

class Statements {
  constructor(private readonly plan: Plan) {}

  /** `WHERE id = $n [AND scope = $m]`, its values pushed onto params. */
  private whereRow(params: unknown[], scope: KeyValue | undefined, id: KeyValue): string {
    const { plan } = this;
    const byId = `${plan.id.column} = ${placeholder(params, id)}`;
    return plan.scope === undefined
      ? byId
      : `${byId} AND ${plan.scope.column} = ${placeholder(params, scope)}`;
  }

  async insert(db: SqlQueryable, scope: KeyValue | undefined, values: unknown): Promise<unknown> {
    const { plan } = this;
    const pairs = assignments(plan, 'insert', values, [plan.scope]);
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
    const { rows } = await db.query(
      `SELECT ${this.plan.select} FROM ${this.plan.table} WHERE ${where}`,
      params,
    );
    return rows[0];
  }

  async update(
    db: SqlQueryable,
    scope: KeyValue | undefined,
    id: KeyValue,
    patch: unknown,
  ): Promise<unknown> {
    const { plan } = this;
    const pairs = assignments(plan, 'update', patch, [plan.scope, plan.id]);
    if (pairs.length === 0) return this.get(db, scope, id);
    const params: unknown[] = [];
    const set = pairs.map(([column, value]) => `${column.column} = ${placeholder(params, value)}`).join(', ');
    const where = this.whereRow(params, scope, id);
    const { rows } = await db.query(
      `UPDATE ${plan.table} SET ${set} WHERE ${where} RETURNING ${plan.select}`,
      params,
    );
    return rows[0];
  }

  async delete(db: SqlQueryable, scope: KeyValue | undefined, id: KeyValue): Promise<boolean> {
    const params: unknown[] = [];
    const where = this.whereRow(params, scope, id);
    const { rowCount } = await db.query(`DELETE FROM ${this.plan.table} WHERE ${where}`, params);
    return rowCount > 0;
  }

  /** The order values of `row`: the order property, then the id (once when they are the same column). */
  private keyOf(row: Record<string, unknown>): unknown[] {
    const { orderBy, id } = this.plan;
    return orderBy === id ? [row[id.property]] : [row[orderBy.property], row[id.property]];
  }

  private startAfter(options: ListOptions<object>): unknown[] | undefined {
    const { plan } = this;
    const keyCount = plan.orderBy === plan.id ? 1 : 2;
    const cursor = options.cursor ?? undefined;
    if (cursor !== undefined && options.after !== undefined) {
      throw invalidOption(`${plan.owner}.list()`, 'after', 'left out when a cursor is given');
    }
    if (cursor !== undefined) return decodeCursor(plan.fingerprint, cursor, keyCount);
    if (options.after === undefined) return undefined;
    const key = this.keyOf(options.after as Record<string, unknown>);
    if (key.some((value) => value === undefined || value === null)) {
      const needed = [...new Set([plan.orderBy.property, plan.id.property])].join(' and ');
      throw invalidOption(`${plan.owner}.list()`, 'after', `a row with ${needed}`);
    }
    return key;
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
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw invalidOption(owner, 'limit', 'a whole number, 1 or more', `got ${String(limit)}`);
    }
    const after = this.startAfter(options);
    const params: unknown[] = [];
    const conditions: string[] = [];
    if (plan.scope !== undefined) conditions.push(`${plan.scope.column} = ${placeholder(params, scope)}`);
    if (after !== undefined) {
      // A row value comparison: (by, id) < ($1, $2) is "strictly after" in descending order, one index range.
      const columns = plan.orderBy === plan.id ? [plan.id] : [plan.orderBy, plan.id];
      const operator = plan.direction === 'DESC' ? '<' : '>';
      const left = columns.map((column) => column.column).join(', ');
      const right = after.map((value) => placeholder(params, value)).join(', ');
      conditions.push(
        columns.length === 1 ? `${left} ${operator} ${right}` : `(${left}) ${operator} (${right})`,
      );
    }
    const orderColumns = plan.orderBy === plan.id ? [plan.id] : [plan.orderBy, plan.id];
    const sql =
      `SELECT ${plan.select} FROM ${plan.table}` +
      (conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`) +
      ` ORDER BY ${orderColumns.map((column) => `${column.column} ${plan.direction}`).join(', ')}` +
      ` LIMIT ${placeholder(params, limit + 1)}`; // one more than asked: is there a next page?
    let rows: Record<string, unknown>[];
    try {
      ({ rows } = await db.query<Record<string, unknown>>(sql, params));
    } catch (error) {
      // Class 22 (data exception): the position holds a value its column cannot hold, e.g. a forged cursor
      // with text where a uuid belongs. The request was wrong, not the database.
      if (after !== undefined && sqlState(error)?.startsWith('22')) throw errors.DATA_CURSOR_INVALID();
      throw error;
    }
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    if (rows.length <= limit || last === undefined) return { items, nextCursor: null };
    const nextCursor = encodeCursor(plan.fingerprint, this.keyOf(last));
    if (nextCursor === undefined) {
      throw invalidOption(
        owner,
        'order.by',
        'a NOT NULL column of text, uuid, number, bigint or timestamp values, as is the id',
        `a row holds ${this.keyOf(last)
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
